export * from './email-address';
export * from './errors';
// parseOutputFormat is for the kernel's decideFormat only (packages/kernel/test/output-format-home.test.ts).
export { parseOutputFormat, type OutputFormat } from './output-format';
export * from './params';
export * from './refusal';
export * from './render';
export * from './unavailable';
export * from './xml';
