/**
 * Variables read outside the services' zod schemas: by `pnpm start`, `pnpm admin`, `pnpm client`,
 * the tracing bootstrap and the release reader. A name that a schema also has only adds its readers
 * here (its description stays the schema's).
 */
export interface ToolVariable {
  name: string;
  readBy: string[];
  defaultValue?: string;
  description?: string;
}

export const toolVariables: ToolVariable[] = [
  { name: 'ADMIN_TOKEN', readBy: ['`pnpm admin`'] },
  { name: 'USER_URL', readBy: ['`pnpm admin`', '`pnpm client`', 'product apps'] },
  { name: 'AUTH_URL', readBy: ['`pnpm client`'] },
  { name: 'SERVICE_JWT_SECRET', readBy: ['`pnpm admin service-jwt`', 'product apps'] },
  { name: 'DATABASE_URL', readBy: ['`pnpm migrate`', '`pnpm admin categories import`', '`pnpm admin reconcile`'] },
  {
    name: 'CATEGORIZATION_URL',
    readBy: ['`pnpm client`'],
    defaultValue: 'http://127.0.0.1:8083',
    description: "The categorization service's base URL.",
  },
  { name: 'API_KEY', readBy: ['`pnpm client`'], description: "The account's API key (required by every command but `--help`)." },
  {
    name: 'TOKEN_EXPIRES_IN',
    readBy: ['`pnpm client`'],
    defaultValue: '3600',
    description: 'Lifetime of the tokens the client asks for, in seconds: 1800, 3600, 7200 or 10800.',
  },
  {
    name: 'DATA_DIR',
    readBy: ['`pnpm start`'],
    defaultValue: '.data',
    description: 'Where the embedded Postgres and the mail outbox live; stop, then delete it to start afresh.',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    readBy: ['all'],
    description:
      'Set (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), it turns tracing on and names the OTLP collector; unset, tracing is off and no OpenTelemetry SDK is loaded (docs/operations.md).',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    readBy: ['all'],
    description: 'The OTLP collector for traces only; set, it turns tracing on like `OTEL_EXPORTER_OTLP_ENDPOINT`.',
  },
  {
    name: 'OTEL_SERVICE_NAME',
    readBy: ['all'],
    description:
      "With tracing on, the spans' `service.name`; unset: `SERVICE` (set in the images), else the service that runs, `account-access-platform` under `pnpm start`.",
  },
  {
    name: 'SERVICE',
    readBy: ['all'],
    description: 'Set in the images: which service the image runs; the spans name it unless `OTEL_SERVICE_NAME` is set.',
  },
  {
    name: 'OTEL_*',
    readBy: ['all'],
    description:
      "With tracing on, the OpenTelemetry SDK's standard variables (`OTEL_EXPORTER_OTLP_PROTOCOL`, `_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_SDK_DISABLED`, …), with the SDK's defaults (`http/protobuf`, every trace sampled).",
  },
  {
    name: 'TRACE_TRUST_INCOMING',
    readBy: ['all'],
    defaultValue: 'false',
    description:
      "Whose incoming `traceparent` a service continues: `false` (nobody's), `true`, or comma-separated addresses and CIDRs of the callers (docs/operations.md).",
  },
  {
    name: 'GIT_COMMIT',
    readBy: ['all'],
    description:
      'The commit a release reports, baked into an image by `docker build --build-arg GIT_COMMIT=…`; a checkout reads it from git.',
  },
  {
    name: 'SMOKE_WAIT_SECONDS',
    readBy: ['`scripts/compose-smoke.sh`'],
    defaultValue: '300',
    description: 'How long the compose smoke test waits for a healthy stack, in seconds.',
  },
];
