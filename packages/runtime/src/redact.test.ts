import { fingerprint, redact, redactText } from './redact';

const API_KEY = 'at_Ab3dEf6hIj9kLm2nOp5qRs8tUvWxY';
const TOKEN = 'tk_9aZ-_kLmNoPqRsTuVwXyZ0123456789abcdefghijkDEF_-1';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJhdXRoIiwiYXVkIjoidXNlciJ9.s1gn4tur3-_x';

describe('redactText', () => {
  it('keeps the fixtures honest: the API key has the real shape', () => {
    expect(API_KEY).toMatch(/^at_[A-Za-z0-9]{29}$/);
  });

  it.each([
    ['an API key', `key ${API_KEY} refused`],
    ['an API key glued to a word', `currentApiKey=${API_KEY}&x=1`],
    ['an API key after an underscore', `key_${API_KEY}`],
    ['an access token', `token ${TOKEN} expired`],
    ['an access token glued to a word', `x_${TOKEN}`],
    ['a Bearer value', 'Authorization: Bearer c2VjcmV0LXZhbHVl'],
    ['a lower-case bearer value', 'authorization: bearer abc.def-ghi'],
    ['a Basic value', 'Basic MTI6YXRfQWIzZEVmNmhJajlrTG0ybk9wNXFSczh0VXZXeFk='],
    ['a JWT', `jwt=${JWT}`],
    ['the Base64 of an API key', `could not decode ${Buffer.from(API_KEY).toString('base64')}`],
    ['the URL-safe Base64 of an API key without padding', Buffer.from(API_KEY).toString('base64url')],
  ])('when text holds %s, then the secret is gone', (_what, text) => {
    const result = redactText(text);
    expect(result).toContain('[redacted]');
    for (const secret of [
      API_KEY,
      TOKEN,
      JWT,
      'c2VjcmV0LXZhbHVl',
      'abc.def-ghi',
      'MTI6YXRf',
      Buffer.from(API_KEY).toString('base64').slice(0, 20),
    ]) {
      expect(result).not.toContain(secret);
    }
  });

  it('when an Authorization value is redacted, then its scheme is kept', () => {
    expect(redactText(`Bearer ${TOKEN}`)).toBe('Bearer [redacted]');
    expect(redactText('basic YmFzaWMtY3JlZHM=')).toBe('basic [redacted]');
  });

  it('when a connection URL holds a password, then only the password is replaced', () => {
    expect(redactText('connect postgres://app:s3cr3t@db:5432/app failed')).toBe('connect postgres://app:[redacted]@db:5432/app failed');
    expect(redactText('redis://:hunter2@cache:6379')).toBe('redis://:[redacted]@cache:6379');
  });

  it('when text holds no secret, then it is unchanged', () => {
    const text = 'GET /user-service/account-balance 200 in 3ms (account 42, product 1, route at_top)';
    expect(redactText(text)).toBe(text);
    expect(redactText('http://db:5432/app')).toBe('http://db:5432/app');
  });
});

describe('redact', () => {
  it.each([
    'apiKey',
    'currentApiKey',
    'api_key',
    'x-api-key',
    'accessToken',
    'access_token',
    'token',
    'tokenHash',
    'authorization',
    'Authorization',
    'client_secret',
    'password',
    'ADMIN_TOKEN',
    'SERVICE_JWT_SECRET',
    'cookie',
    'credential',
  ])('when a member is named %s, then its value is replaced whatever it looks like', (name) => {
    expect(redact({ [name]: 'plain-value-1234', other: 'visible' })).toEqual({ [name]: '[redacted]', other: 'visible' });
  });

  it('when a secret-named member holds a number or object, then it is replaced too', () => {
    expect(redact({ token: 12345, credential: { value: 'x' } })).toEqual({ token: '[redacted]', credential: '[redacted]' });
  });

  it('when a secret-named member is a boolean flag, then it is kept (it reveals nothing)', () => {
    expect(redact({ tokenPresented: true })).toEqual({ tokenPresented: true });
  });

  it('when a non-secret member holds secret-shaped text, then the text is redacted', () => {
    expect(redact({ note: `used ${API_KEY}` })).toEqual({ note: 'used [redacted]' });
  });

  it('when secrets are nested in objects and arrays, then they are redacted at every level', () => {
    const result = redact({
      req: { headers: { authorization: 'Bearer x' }, query: { apiKey: 'k' } },
      list: [{ password: 'p' }, `t ${TOKEN}`],
    });
    expect(result).toEqual({
      req: { headers: { authorization: '[redacted]' }, query: { apiKey: '[redacted]' } },
      list: [{ password: '[redacted]' }, 't [redacted]'],
    });
  });

  it('when a secret sits deeper than the copy goes, then it is dropped rather than logged', () => {
    let deep: Record<string, unknown> = { leak: API_KEY };
    for (let level = 0; level < 20; level += 1) deep = { next: deep };
    expect(JSON.stringify(redact(deep))).not.toContain(API_KEY);
    expect(JSON.stringify(redact(deep))).toContain('[truncated]');
  });

  it('when a record is circular, then redaction still ends', () => {
    const record: Record<string, unknown> = { name: 'loop' };
    record.self = record;
    expect(() => redact(record)).not.toThrow();
  });

  it('when the value is an Error, then name, message and stack survive with secrets removed', () => {
    const error = new Error(`lookup failed for ${API_KEY}`);
    const result = redact(error) as Record<string, unknown>;
    expect(result.name).toBe('Error');
    expect(result.message).toBe('lookup failed for [redacted]');
    expect(result.stack).toEqual(expect.stringContaining('lookup failed for [redacted]'));
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });

  it('when an Error has a cause and own fields, then they are kept, redacted', () => {
    const error = Object.assign(new Error('outer', { cause: new Error(`inner Bearer ${TOKEN}`) }), { code: '57P01', token: TOKEN });
    const result = redact(error) as Record<string, unknown>;
    expect(result.code).toBe('57P01');
    expect(result.token).toBe('[redacted]');
    expect((result.cause as Record<string, unknown>).message).toBe('inner Bearer [redacted]');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('when a member is a Date, then it is logged as its ISO text', () => {
    expect(redact({ at: new Date(0) })).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });

  it('when a member is binary, then only its size is logged', () => {
    expect(redact({ body: Buffer.from(API_KEY) })).toEqual({ body: '[binary 32 bytes]' });
  });

  it('when values are scalars, then they pass through', () => {
    expect(redact(42)).toBe(42);
    expect(redact(null)).toBeNull();
    expect(redact(undefined)).toBeUndefined();
    expect(redact({ a: 1, b: false, c: null })).toEqual({ a: 1, b: false, c: null });
  });

  it('when redacting, then the input is left untouched', () => {
    const input = { apiKey: API_KEY };
    redact(input);
    expect(input.apiKey).toBe(API_KEY);
  });
});

describe('fingerprint', () => {
  it('when the same secret is fingerprinted twice, then the result is the same', () => {
    expect(fingerprint(API_KEY)).toBe(fingerprint(API_KEY));
  });

  it('when secrets differ, then their fingerprints differ', () => {
    expect(fingerprint(API_KEY)).not.toBe(fingerprint(`${API_KEY.slice(0, -1)}Z`));
  });

  it('is short lowercase hex that reveals nothing of the secret', () => {
    const value = fingerprint(API_KEY);
    expect(value).toMatch(/^[0-9a-f]{12}$/);
    expect(API_KEY).not.toContain(value);
    expect(redactText(value)).toBe(value);
  });

  it('is the prefix of the SHA-256 (so it matches stored hashes for correlation)', () => {
    expect(fingerprint('abc')).toBe('ba7816bf8f01');
  });
});
