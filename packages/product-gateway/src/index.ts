export * from './lookup-request';
export * from './product-gateway';
export * from './usage-client';
export * from './usage-coalescer';
