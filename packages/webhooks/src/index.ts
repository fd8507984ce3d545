export * from './payload';
export * from './send';
export * from './sign';
export * from './target';
