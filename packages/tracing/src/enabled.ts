/**
 * Whether tracing is on: an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and OTEL_SDK_DISABLED is not `true`.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * The service name of the process's spans: OTEL_SERVICE_NAME, else SERVICE (set in the images),
 * else the service whose entry point runs (`services/<name>/…`), else the all-in-one platform.
 */
export function serviceNameOf(env: NodeJS.ProcessEnv, argv: readonly string[]): string {
  const named = env.OTEL_SERVICE_NAME?.trim() || env.SERVICE?.trim();
  if (named) return named;
  const entry = /services[\\/]([a-z-]+)[\\/]/.exec(argv[1] ?? '')?.[1];
  return entry ?? 'account-access-platform';
}
