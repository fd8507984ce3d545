/** Property-based checks of what every request passes through: parameters, output format, error envelopes. */
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { AppError, renderError, type Envelope, type ErrorCode } from './errors';
import { readOutputFormat } from './output-format';
import { Params } from './params';
import { serialize } from './render';

const CODES: ErrorCode[] = [
  'malformed_body',
  'payload_too_large',
  'unauthenticated',
  'credits_exhausted',
  'read_only',
  'invalid_params',
  'invalid_request_params',
  'key_not_active',
  'unsupported_grant_type',
  'not_found',
  'conflict',
  'rate_limited',
  'unavailable',
  'internal',
];
const ENVELOPES: Envelope[] = ['codeMessages', 'errorMessage', 'oauth'];

/** What express's parsers can hand over: query strings (extended parser off: strings and arrays) and JSON or form bodies. */
const requestValue = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined));
const names = fc.constantFrom(
  'outputFormat',
  'apiKey',
  'productId',
  'grantType',
  'expiresIn',
  'a[b]',
  'constructor',
  '__proto__',
  'toString',
);
const source = fc.dictionary(fc.oneof(names, fc.string({ maxLength: 8 })), requestValue, { maxKeys: 6 });

const wellFormedXml = (xml: string): boolean => {
  new SaxesParser().write(xml).close();
  return true;
};

describe('parameter parsing under hostile input', () => {
  it('when any query and body arrive (arrays, objects, prototype names), then reading a parameter never throws and says absent, a string, or invalid', () => {
    fc.assert(
      fc.property(source, fc.oneof(source, fc.jsonValue({ maxDepth: 2 })), names, (query, body, name) => {
        const value = new Params(query, body).get(name);
        expect(['absent', 'value', 'invalid']).toContain(value.kind);
        if (value.kind === 'value') expect(typeof value.value).toBe('string');
      }),
      { numRuns: 500 },
    );
  });

  it('when a parameter is a string in the body, then it is read as given, whatever the query says', () => {
    fc.assert(
      fc.property(source, fc.string({ minLength: 1 }), (query, text) => {
        expect(new Params(query, { apiKey: text }).get('apiKey')).toEqual({ kind: 'value', value: text });
      }),
    );
  });

  it('when outputFormat is anything at all, then it is JSON, XML, or the 422 of the contract (never another error)', () => {
    fc.assert(
      fc.property(source, requestValue, (query, format) => {
        try {
          expect(['JSON', 'XML']).toContain(readOutputFormat(new Params({ ...query, outputFormat: format }, undefined)));
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect(renderError(error, 'codeMessages').body).toEqual({
            code: 422,
            messages: { outputFormat: ['The selected output format is invalid.'] },
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('error envelopes under hostile input', () => {
  const thrown = fc.oneof(
    fc
      .record({
        code: fc.constantFrom(...CODES),
        message: fc.option(fc.string(), { nil: undefined }),
        fields: fc.option(
          fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.array(fc.string(), { minLength: 1, maxLength: 2 }), { maxKeys: 3 }),
          {
            nil: undefined,
          },
        ),
        retryAfterSeconds: fc.option(fc.oneof(fc.double(), fc.integer()), { nil: undefined }),
      })
      .map(
        ({ code, message, fields, retryAfterSeconds }) =>
          new AppError(code, {
            ...(message === undefined ? {} : { message }),
            ...(fields === undefined ? {} : { fields }),
            ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
          }),
      ),
    fc.anything(),
  );

  it('when anything is thrown, then every envelope renders a status of the closed model, valid JSON and well-formed XML, and an unknown error says nothing more than the 500 sentence', () => {
    fc.assert(
      fc.property(thrown, fc.constantFrom(...ENVELOPES), (error, envelope) => {
        const rendered = renderError(error, envelope);
        expect([400, 401, 403, 404, 409, 413, 422, 429, 500, 503]).toContain(rendered.status);
        expect(JSON.parse(serialize(rendered.body, 'JSON').body)).toEqual(rendered.body);
        expect(wellFormedXml(serialize(rendered.xml.value, 'XML', rendered.xml.root).body)).toBe(true);
        if (rendered.status === 500) expect(JSON.stringify(rendered.body)).toContain('Internal server error.');
        if (!(error instanceof AppError)) expect(rendered.status).toBe(500);
        const retryAfter = rendered.headers['Retry-After'];
        if (retryAfter !== undefined) expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
      }),
      { numRuns: 500 },
    );
  });
});
