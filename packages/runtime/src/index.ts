export * from './config';
export * from './health';
export * from './lifecycle';
export * from './logger';
export * from './metrics';
export * from './redact';
export * from './secret-compare';
export * from './trace-context';
