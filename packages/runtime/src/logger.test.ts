import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from './logger';

const API_KEY = 'at_Ab3dEf6hIj9kLm2nOp5qRs8tUvWxY';
const TOKEN = 'tk_9aZ-_kLmNoPqRsTuVwXyZ0123456789abcdefghijkDEF_-1';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJhdXRoIiwiYXVkIjoidXNlciJ9.s1gn4tur3-_x';
const SECRETS = [API_KEY, TOKEN, JWT, 'plain-admin-token-value', 'client-secret-value', 'hunter2', 'YmFzaWMtY3JlZHM='];

/** A logger writing JSON lines into memory. */
function capture(level = 'debug'): { logger: Logger; text(): string; lines(): Array<Record<string, unknown>> } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const logger = createLogger({ service: 'test-service', level, stream });
  const text = (): string => chunks.join('');
  const lines = (): Array<Record<string, unknown>> =>
    text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, text, lines };
}

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('createLogger', () => {
  it('when a record is logged, then it is one JSON line with level, message, service and timestamp', () => {
    const logs = capture();
    logs.logger.info('request', { route: '/x', status: '200' });
    expect(logs.lines()).toEqual([
      { level: 'info', message: 'request', service: 'test-service', route: '/x', status: '200', timestamp: expect.any(String) as unknown },
    ]);
  });

  it('when the level is below the threshold, then nothing is written', () => {
    const logs = capture('warn');
    logs.logger.info('quiet');
    logs.logger.warn('loud');
    expect(logs.lines().map((line) => line.message)).toEqual(['loud']);
  });

  it('when secret-named fields are logged, then their values never reach the output', () => {
    const logs = capture();
    logs.logger.info('call', {
      apiKey: API_KEY,
      currentApiKey: API_KEY,
      accessToken: TOKEN,
      token: TOKEN,
      authorization: `Bearer ${JWT}`,
      client_secret: 'client-secret-value',
      password: 'hunter2',
      adminToken: 'plain-admin-token-value',
    });
    expectNoSecret(logs.text());
    expect(logs.lines()[0]).toMatchObject({ apiKey: '[redacted]', client_secret: '[redacted]', password: '[redacted]' });
  });

  it('when secret-shaped text is in the message, then it is redacted', () => {
    const logs = capture();
    logs.logger.warn(`refused ${API_KEY}, then ${TOKEN}, header Bearer ${JWT} and Basic YmFzaWMtY3JlZHM=`);
    expectNoSecret(logs.text());
    expect(logs.lines()[0]?.message).toContain('[redacted]');
  });

  it('when secrets are nested in objects and arrays, then they are redacted', () => {
    const logs = capture();
    logs.logger.info('nested', {
      req: { headers: { authorization: 'Basic YmFzaWMtY3JlZHM=' }, body: { items: [{ secret: 'hunter2' }, `see ${TOKEN}`] } },
    });
    expectNoSecret(logs.text());
  });

  it('when an error with a secret in its message is logged as a field, then message and stack are redacted', () => {
    const logs = capture();
    logs.logger.error('unhandled error', { error: new Error(`token ${TOKEN} not found`, { cause: new Error(`key ${API_KEY}`) }) });
    expectNoSecret(logs.text());
    const error = logs.lines()[0]?.error as Record<string, unknown>;
    expect(error.message).toBe('token [redacted] not found');
    expect(error.stack).toEqual(expect.stringContaining('token [redacted] not found'));
  });

  it('when an Error itself is logged, then its message (redacted) and stack are in the line', () => {
    const logs = capture();
    logs.logger.error(new Error(`failed with Bearer ${JWT}`));
    expectNoSecret(logs.text());
    const [line] = logs.lines();
    expect(line).toMatchObject({ level: 'error', message: 'failed with Bearer [redacted]', service: 'test-service' });
    expect(line?.stack).toEqual(expect.stringContaining('failed with Bearer [redacted]'));
  });

  it('when a child logger carries request metadata, then it is kept and secrets are still redacted', () => {
    const logs = capture();
    const child = logs.logger.child({ requestId: 'req-1' });
    child.info('done', { apiKey: API_KEY });
    expectNoSecret(logs.text());
    expect(logs.lines()[0]).toMatchObject({ requestId: 'req-1', apiKey: '[redacted]', service: 'test-service' });
  });

  it('when a child logger is made with a secret in its metadata, then it is redacted too', () => {
    const logs = capture();
    logs.logger.child({ token: TOKEN }).info('x');
    expectNoSecret(logs.text());
  });

  it('when a value is a short fingerprint, then it is logged as is for correlation', () => {
    const logs = capture();
    logs.logger.info('key rotated', { keyFingerprint: 'ba7816bf8f01' });
    expect(logs.lines()[0]?.keyFingerprint).toBe('ba7816bf8f01');
  });
});
