export { serviceNameOf, tracingEnabled } from './enabled';
export { startTracing, type TracingOptions } from './sdk';
