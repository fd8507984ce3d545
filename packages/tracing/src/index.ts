export { serviceNameOf, tracingEnabled } from './enabled';
export { startTracing, type TracingOptions } from './sdk';
export { parseTraceTrust, trustsTraceOf, type TraceTrust } from './incoming-trust';
