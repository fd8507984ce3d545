import {
  ACCESS_RESTRICTED,
  AppError,
  describeError,
  type ErrorCode,
  fieldWords,
  invalidMessage,
  invalidParams,
  renderError,
  requiredMessage,
} from './errors';
import { serialize } from './render';

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** The body a client receives, in the format asked for. */
function wire(error: unknown, envelope: 'codeMessages' | 'errorMessage' | 'oauth', format: 'JSON' | 'XML'): string {
  const rendered = renderError(error, envelope);
  return format === 'XML' ? serialize(rendered.xml.value, 'XML', rendered.xml.root).body : serialize(rendered.body, 'JSON').body;
}

describe('describeError (CONTRACT §2 status table)', () => {
  const table: Array<[ErrorCode, number, string]> = [
    ['malformed_body', 400, 'Malformed request body.'],
    ['payload_too_large', 413, 'Request body too large.'],
    ['unauthenticated', 401, ACCESS_RESTRICTED],
    ['credits_exhausted', 403, ACCESS_RESTRICTED],
    ['read_only', 403, 'This admin token may only read.'],
    ['invalid_params', 422, 'Input correct request parameters.'],
    ['invalid_request_params', 422, 'Input correct request parameters.'],
    ['key_not_active', 400, 'The API key you entered does not exist or is no longer active.'],
    ['unsupported_grant_type', 400, 'The selected grant type is invalid.'],
    ['not_found', 404, 'Not found.'],
    ['conflict', 409, 'Conflict.'],
    ['rate_limited', 429, 'Too Many Requests. Try your call again later.'],
    ['unavailable', 503, 'Service temporarily unavailable. Try your call again later.'],
    ['internal', 500, 'Internal server error.'],
  ];

  it.each(table)('when the code is %s, then the status is %i with its contract wording', (code, status, message) => {
    expect(describeError(code)).toMatchObject({ status, message });
  });

  it('uses the real 401 sentence word for word', () => {
    expect(ACCESS_RESTRICTED).toBe('Access restricted. Check credits balance or enter the correct API key.');
  });

  it('when the credential is refused, then the ErrorMessage code is AUTHENTICATE_01', () => {
    expect(describeError('unauthenticated').errorCode).toBe('AUTHENTICATE_01');
  });

  it('gives every code an ErrorMessage errorCode and an RFC 6749 error name', () => {
    for (const [code] of table) {
      const description = describeError(code);
      expect(description.errorCode).toMatch(/^[A-Z_]+_\d{2}$/);
      expect(description.oauthError).toMatch(/^[a-z_]+$/);
    }
  });
});

describe('validation wording', () => {
  it.each([
    ['grantType', 'grant type'],
    ['expiresIn', 'expires in'],
    ['productId', 'product id'],
    ['outputFormat', 'output format'],
    ['currentApiKey', 'current api key'],
    ['expires_in', 'expires in'],
    ['order', 'order'],
    ['lowBalanceAlert.threshold', 'low balance alert.threshold'],
  ])('when the field is %s, then its words are "%s"', (field, words) => {
    expect(fieldWords(field)).toBe(words);
  });

  it('when a field is missing, then "The <words> field is required."', () => {
    expect(requiredMessage('grantType')).toBe('The grant type field is required.');
  });

  it('when a value is outside the allowed set, then "The selected <words> is invalid."', () => {
    expect(invalidMessage('expiresIn')).toBe('The selected expires in is invalid.');
    expect(invalidMessage('productId')).toBe('The selected product id is invalid.');
    expect(invalidMessage('lowBalanceAlert.threshold')).toBe('The selected low balance alert.threshold is invalid.');
  });

  it('when invalidParams is built, then it is a 422 AppError carrying the fields', () => {
    const error = invalidParams({ order: [invalidMessage('order')] });
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('invalid_params');
    expect(error.fields).toEqual({ order: ['The selected order is invalid.'] });
  });
});

describe('AppError', () => {
  it('when built with a code only, then it carries the code and no HTTP knowledge', () => {
    const error = new AppError('conflict');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AppError');
    expect(error.code).toBe('conflict');
    expect(error.customMessage).toBeUndefined();
    expect(error.fields).toBeUndefined();
  });

  it('when given a cause, then the cause is kept for the log', () => {
    const cause = new Error('redis down');
    expect(new AppError('unavailable', { cause }).cause).toBe(cause);
  });
});

describe('renderError: an error thrown with its code alone, on the wire', () => {
  it.each<[string, ErrorCode, 'codeMessages' | 'errorMessage', 'JSON' | 'XML', string]>([
    [
      'when the message is a string, then JSON is {"code","messages"}',
      'unauthenticated',
      'codeMessages',
      'JSON',
      '{"code":401,"messages":"Access restricted. Check credits balance or enter the correct API key."}',
    ],
    [
      'when the message is a string, then XML is <xml><code/><messages/></xml>',
      'unauthenticated',
      'codeMessages',
      'XML',
      `${DECLARATION}<xml><code>401</code><messages>Access restricted. Check credits balance or enter the correct API key.</messages></xml>`,
    ],
    [
      'when key generation refuses the input, then 422 with its own string',
      'invalid_request_params',
      'codeMessages',
      'JSON',
      '{"code":422,"messages":"Input correct request parameters."}',
    ],
    [
      'when the key is not active, then 400 with the contract string',
      'key_not_active',
      'codeMessages',
      'JSON',
      '{"code":400,"messages":"The API key you entered does not exist or is no longer active."}',
    ],
    [
      'when the credential is refused, then JSON is {"ErrorMessage":{"errorCode","msg"}}',
      'unauthenticated',
      'errorMessage',
      'JSON',
      '{"ErrorMessage":{"errorCode":"AUTHENTICATE_01","msg":"Access restricted. Check credits balance or enter the correct API key."}}',
    ],
    [
      'when the credential is refused, then XML has root <ErrorMessage>',
      'unauthenticated',
      'errorMessage',
      'XML',
      `${DECLARATION}<ErrorMessage><errorCode>AUTHENTICATE_01</errorCode><msg>Access restricted. Check credits balance or enter the correct API key.</msg></ErrorMessage>`,
    ],
  ])('%s', (_case, code, envelope, format, text) => {
    expect(wire(new AppError(code), envelope, format)).toBe(text);
  });
});

describe('renderError: code/messages envelope', () => {
  it('when the grant type is invalid, then JSON is the contract 422 with a grantType message list', () => {
    const error = invalidParams({ grantType: ['The selected grant type is invalid.'] });
    expect(wire(error, 'codeMessages', 'JSON')).toBe('{"code":422,"messages":{"grantType":["The selected grant type is invalid."]}}');
  });

  it('when the grant type is invalid, then XML is the contract 422 with <item> per message', () => {
    const error = invalidParams({ grantType: ['The selected grant type is invalid.'] });
    expect(wire(error, 'codeMessages', 'XML')).toBe(
      `${DECLARATION}<xml><code>422</code><messages><grantType><item>The selected grant type is invalid.</item></grantType></messages></xml>`,
    );
  });

  it('when several fields are invalid, then all are reported together', () => {
    const error = invalidParams({ grantType: [requiredMessage('grantType')], expiresIn: [invalidMessage('expiresIn')] });
    expect(renderError(error, 'codeMessages').body).toEqual({
      code: 422,
      messages: { grantType: ['The grant type field is required.'], expiresIn: ['The selected expires in is invalid.'] },
    });
  });

  it('when the thrower names a message, then it replaces the default wording (409)', () => {
    expect(renderError(new AppError('conflict', { message: 'E-mail already registered.' }), 'codeMessages')).toMatchObject({
      status: 409,
      body: { code: 409, messages: 'E-mail already registered.' },
    });
  });

  it('when nothing is rate limited, then no Retry-After header is set', () => {
    expect(renderError(new AppError('unauthenticated'), 'codeMessages').headers).toEqual({ 'X-Refusal-Reason': 'invalid_credential' });
  });
});

describe('renderError: ErrorMessage envelope', () => {
  it('when validation fails, then msg is the first field message', () => {
    const error = invalidParams({ domainName: [requiredMessage('domainName')], other: ['x'] });
    expect(renderError(error, 'errorMessage')).toMatchObject({
      status: 422,
      body: { ErrorMessage: { errorCode: 'VALIDATION_01', msg: 'The domain name field is required.' } },
    });
  });

  it('when the pool is exhausted, then 403 with the access-restricted msg', () => {
    expect(renderError(new AppError('credits_exhausted'), 'errorMessage')).toMatchObject({
      status: 403,
      body: { ErrorMessage: { msg: ACCESS_RESTRICTED } },
    });
  });
});

describe('renderError: OAuth envelope (RFC 6749 §5.2)', () => {
  it('when the client is refused, then 401 invalid_client', () => {
    expect(renderError(new AppError('unauthenticated'), 'oauth')).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: ACCESS_RESTRICTED },
    });
  });

  it('when every pool of the account is 0, then 401 invalid_client too (CONTRACT §4.1)', () => {
    expect(renderError(new AppError('credits_exhausted'), 'oauth')).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('when the grant type is unsupported, then 400 unsupported_grant_type', () => {
    expect(renderError(new AppError('unsupported_grant_type'), 'oauth')).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
  });

  it('when parameters are invalid, then 400 invalid_request with every field message', () => {
    const error = invalidParams({ expires_in: [invalidMessage('expires_in')], client_id: [requiredMessage('client_id')] });
    expect(renderError(error, 'oauth')).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'The selected expires in is invalid. The client id field is required.' },
      xml: {
        root: 'xml',
        value: { error: 'invalid_request', error_description: 'The selected expires in is invalid. The client id field is required.' },
      },
      headers: {},
    });
  });

  it('when the body is malformed, then 400 invalid_request', () => {
    expect(renderError(new AppError('malformed_body'), 'oauth')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('when the body is too large, then the status stays 413', () => {
    expect(renderError(new AppError('payload_too_large'), 'oauth').status).toBe(413);
  });

  it('when rate limited, then the code/messages envelope is kept with Retry-After', () => {
    expect(renderError(new AppError('rate_limited', { retryAfterSeconds: 42 }), 'oauth')).toMatchObject({
      status: 429,
      body: { code: 429, messages: 'Too Many Requests. Try your call again later.' },
      headers: { 'Retry-After': '42' },
    });
  });

  it('when the service is unavailable, then 503 temporarily_unavailable', () => {
    expect(renderError(new AppError('unavailable'), 'oauth')).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });
  });
});

describe('renderError: Retry-After', () => {
  it('when rate limited, then Retry-After carries whole seconds, rounded up', () => {
    expect(renderError(new AppError('rate_limited', { retryAfterSeconds: 12.2 }), 'codeMessages')).toMatchObject({
      status: 429,
      headers: { 'Retry-After': '13' },
      body: { code: 429, messages: 'Too Many Requests. Try your call again later.' },
    });
  });

  it('when the wait is below a second, then Retry-After is at least 1', () => {
    expect(renderError(new AppError('rate_limited', { retryAfterSeconds: 0 }), 'codeMessages').headers).toEqual({
      'Retry-After': '1',
      'X-Refusal-Reason': 'rate_limited',
    });
  });

  it('when unavailable, then 503 with Retry-After in every envelope', () => {
    for (const envelope of ['codeMessages', 'errorMessage', 'oauth'] as const) {
      const rendered = renderError(new AppError('unavailable', { retryAfterSeconds: 5 }), envelope);
      expect(rendered.status).toBe(503);
      expect(rendered.headers).toEqual({ 'Retry-After': '5' });
    }
  });

  it('when the wait is not a number, then no Retry-After header is sent', () => {
    expect(renderError(new AppError('rate_limited', { retryAfterSeconds: Number.NaN }), 'codeMessages').headers).toEqual({
      'X-Refusal-Reason': 'rate_limited',
    });
  });
});

describe('renderError: unknown errors', () => {
  const internals = new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2');

  it.each(['codeMessages', 'errorMessage', 'oauth'] as const)(
    'when a plain Error reaches the %s envelope, then a generic 500 without internals',
    (envelope) => {
      const rendered = renderError(internals, envelope);
      expect(rendered.status).toBe(500);
      const text = JSON.stringify(rendered);
      expect(text).toContain('Internal server error.');
      expect(text).not.toContain('ECONNREFUSED');
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('at ');
    },
  );

  it('when the thrown value is not even an Error, then still the generic 500', () => {
    for (const thrown of ['boom', 42, null, undefined, { message: 'x' }]) {
      expect(renderError(thrown, 'codeMessages')).toEqual({
        status: 500,
        body: { code: 500, messages: 'Internal server error.' },
        xml: { root: 'xml', value: { code: 500, messages: 'Internal server error.' } },
        headers: {},
      });
    }
  });

  it('when an internal AppError carries its own message, then the client still sees only the generic sentence', () => {
    const error = new AppError('internal', { message: 'pool_balances row missing for account 7' });
    expect(wire(error, 'codeMessages', 'JSON')).toBe('{"code":500,"messages":"Internal server error."}');
    expect(error.message).toBe('pool_balances row missing for account 7');
  });

  it('when an unknown error is rendered as XML, then the 500 XML envelope', () => {
    expect(wire(internals, 'codeMessages', 'XML')).toBe(
      `${DECLARATION}<xml><code>500</code><messages>Internal server error.</messages></xml>`,
    );
  });
});
