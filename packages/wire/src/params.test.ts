import { AppError, type FieldMessages } from './errors';
import { NUMERIC, Params, throwIfInvalid } from './params';

describe('Params.get', () => {
  it('when a parameter is in the query string, then its value is read', () => {
    expect(new Params({ apiKey: 'at_x' }, undefined).get('apiKey')).toEqual({ kind: 'value', value: 'at_x' });
  });

  it('when a parameter is in a JSON body, then its value is read', () => {
    expect(new Params({}, { grantType: 'access_token' }).get('grantType')).toEqual({ kind: 'value', value: 'access_token' });
  });

  it('when a parameter is in a form body, then its value is read', () => {
    // express.urlencoded({ extended: false }) yields a plain record of strings.
    expect(new Params({}, { grant_type: 'client_credentials' }).get('grant_type')).toEqual({ kind: 'value', value: 'client_credentials' });
  });

  it('when a parameter is in both body and query, then the body wins', () => {
    expect(new Params({ outputFormat: 'XML' }, { outputFormat: 'JSON' }).get('outputFormat')).toEqual({ kind: 'value', value: 'JSON' });
  });

  it('when the body holds an invalid value and the query a valid one, then the body still wins (invalid)', () => {
    expect(new Params({ productId: '1' }, { productId: [1] }).get('productId')).toEqual({ kind: 'invalid' });
  });

  it('when the body gives the parameter as empty, then the query value is used', () => {
    expect(new Params({ productId: '1' }, { productId: '' }).get('productId')).toEqual({ kind: 'value', value: '1' });
  });

  it('when a parameter is not sent at all, then it is absent', () => {
    expect(new Params({}, {}).get('apiKey')).toEqual({ kind: 'absent' });
  });

  it('when a parameter is an empty string, then it counts as absent', () => {
    expect(new Params({ outputFormat: '' }, undefined).get('outputFormat')).toEqual({ kind: 'absent' });
    expect(new Params({}, { outputFormat: '' }).get('outputFormat')).toEqual({ kind: 'absent' });
  });

  it('when a JSON parameter is null, then it counts as absent', () => {
    expect(new Params({}, { expiresIn: null }).get('expiresIn')).toEqual({ kind: 'absent' });
  });

  it('when a JSON parameter is a number, then it reads as its decimal string', () => {
    const params = new Params({}, { expiresIn: 7200, amount: -50, ratio: 1.5 });
    expect(params.get('expiresIn')).toEqual({ kind: 'value', value: '7200' });
    expect(params.get('amount')).toEqual({ kind: 'value', value: '-50' });
    expect(params.get('ratio')).toEqual({ kind: 'value', value: '1.5' });
  });

  it('when a JSON parameter is a numeric string, then it reads the same as the number', () => {
    expect(new Params({}, { expiresIn: '7200' }).get('expiresIn')).toEqual(new Params({}, { expiresIn: 7200 }).get('expiresIn'));
  });

  it('when a parameter is repeated (an array), then it is invalid', () => {
    expect(new Params({ apiKey: ['a', 'b'] }, undefined).get('apiKey')).toEqual({ kind: 'invalid' });
    expect(new Params({}, { apiKey: ['a'] }).get('apiKey')).toEqual({ kind: 'invalid' });
  });

  it('when a parameter is an object, then it is invalid', () => {
    expect(new Params({}, { apiKey: { $ne: '' } }).get('apiKey')).toEqual({ kind: 'invalid' });
    expect(new Params({ outputFormat: { a: 'b' } }, undefined).get('outputFormat')).toEqual({ kind: 'invalid' });
  });

  it('when a parameter arrives as a[b]=c from the simple query or form parser, then a is invalid', () => {
    expect(new Params({ 'apiKey[b]': 'c' }, undefined).get('apiKey')).toEqual({ kind: 'invalid' });
    expect(new Params({ 'outputFormat[]': 'xml', outputFormat: 'json' }, undefined).get('outputFormat')).toEqual({ kind: 'invalid' });
    expect(new Params({}, { 'currentApiKey[x]': '' }).get('currentApiKey')).toEqual({ kind: 'invalid' });
  });

  it('when another parameter merely shares a prefix, then it does not make this one invalid', () => {
    expect(new Params({ apiKeyOld: 'x', 'apiKeys[0]': 'y', apiKey: 'k' }, undefined).get('apiKey')).toEqual({ kind: 'value', value: 'k' });
  });

  it('when a parameter is a boolean, then it is invalid (parameters are flat strings)', () => {
    expect(new Params({}, { grantType: true }).get('grantType')).toEqual({ kind: 'invalid' });
  });

  it('when a number is not finite, then it is invalid', () => {
    expect(new Params({}, { expiresIn: Number.POSITIVE_INFINITY }).get('expiresIn')).toEqual({ kind: 'invalid' });
  });

  it('when names differ only in case, then they are different parameters', () => {
    expect(new Params({ apikey: 'x' }, undefined).get('apiKey')).toEqual({ kind: 'absent' });
  });

  it('when the body is not an object (a JSON array or nothing), then only the query counts', () => {
    expect(new Params({ a: '1' }, [{ a: '2' }]).get('a')).toEqual({ kind: 'value', value: '1' });
    expect(new Params(undefined, null).get('a')).toEqual({ kind: 'absent' });
  });

  it('when a key is inherited rather than sent, then it is absent', () => {
    expect(new Params({}, {}).get('toString')).toEqual({ kind: 'absent' });
    expect(new Params(Object.create({ apiKey: 'x' }) as object, undefined).get('apiKey')).toEqual({ kind: 'absent' });
  });

  it('when rawBody is read, then the JSON body record is returned for nested documents', () => {
    const body = { lowBalanceAlert: { threshold: 25 } };
    expect(new Params({}, body).rawBody()).toEqual(body);
    expect(new Params({}, 'text').rawBody()).toEqual({});
  });
});

describe('Params.string', () => {
  it('when the value is present, then it is returned and no error recorded', () => {
    const errors: FieldMessages = {};
    expect(new Params({ order: 'ABC' }, undefined).string('order', errors)).toBe('ABC');
    expect(errors).toEqual({});
  });

  it('when the value is absent, then undefined and no error recorded', () => {
    const errors: FieldMessages = {};
    expect(new Params({}, undefined).string('order', errors)).toBeUndefined();
    expect(errors).toEqual({});
  });

  it('when the value is invalid, then undefined and the field gets the invalid message', () => {
    const errors: FieldMessages = {};
    expect(new Params({ productId: ['1', '2'] }, undefined).string('productId', errors)).toBeUndefined();
    expect(errors).toEqual({ productId: ['The selected product id is invalid.'] });
  });
});

describe('throwIfInvalid', () => {
  it('when no field failed, then nothing is thrown', () => {
    expect(() => throwIfInvalid({})).not.toThrow();
  });

  it('when fields failed, then the 422 AppError carries them all', () => {
    const errors = { a: ['x'], b: ['y'] };
    try {
      throwIfInvalid(errors);
      throw new Error('expected a throw');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'invalid_params', fields: errors });
    }
  });
});

describe('NUMERIC', () => {
  it.each(['0', '7200', '0050'])('accepts %s', (value) => {
    expect(NUMERIC.test(value)).toBe(true);
  });

  it.each(['', '-1', '1.5', '1e3', ' 1', '1 ', '+1', '0x10', '１'])('refuses %j', (value) => {
    expect(NUMERIC.test(value)).toBe(false);
  });
});

describe('Params.from', () => {
  /** A request whose query string counts how often it is parsed (express 5 parses it on every read). */
  function request(query: Record<string, unknown>, body: unknown): { req: Parameters<typeof Params.from>[0]; parses: () => number } {
    let parses = 0;
    const req = {
      body,
      get query() {
        parses += 1;
        return query;
      },
    };
    return { req, parses: () => parses };
  }

  it('when every name read is in the body, then the query string is never parsed', () => {
    const { req, parses } = request({ grantType: 'x' }, { grantType: 'access_token', expiresIn: 1800 });
    const params = Params.from(req);
    expect(params.get('grantType')).toEqual({ kind: 'value', value: 'access_token' });
    expect(params.get('expiresIn')).toEqual({ kind: 'value', value: '1800' });
    expect(parses()).toBe(0);
  });

  it('when names are missing from the body, then the query string is parsed once and read', () => {
    const { req, parses } = request({ outputFormat: 'XML', productId: '1' }, undefined);
    const params = Params.from(req);
    expect(params.get('outputFormat')).toEqual({ kind: 'value', value: 'XML' });
    expect(params.get('productId')).toEqual({ kind: 'value', value: '1' });
    expect(params.get('apiKey')).toEqual({ kind: 'absent' });
    expect(parses()).toBe(1);
  });

  it('when the query string brackets a name, then it is invalid, as with a parsed query', () => {
    const { req } = request({ 'productId[a]': '1' }, {});
    expect(Params.from(req).get('productId')).toEqual({ kind: 'invalid' });
  });
});
