export * from './key-directory';
export * from './memory-token-store';
export * from './redis-token-store';
export * from './secrets';
export * from './service-jwt';
export * from './token-format';
export * from './token-store';
export * from './verify';
