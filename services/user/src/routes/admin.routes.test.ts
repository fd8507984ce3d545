import { AppError, Params } from '@platform/wire';
import { validateParams, validatePath } from '@platform/kernel';
import { changeCreditsRoute, createAccountRoute } from './admin.routes';

/** The fields of the 422 (or the code of another refusal) a validation throws, or the values it returns. */
function outcome(run: () => unknown): unknown {
  try {
    return { values: run() };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return error.fields ?? error.code;
  }
}

const newAccount = (body: Record<string, unknown>) => outcome(() => validateParams(createAccountRoute, new Params({}, body)).document);
const creditChange = (body: Record<string, unknown>) => outcome(() => validateParams(changeCreditsRoute, new Params({}, body)).document);

describe('the body of POST /admin/v1/accounts', () => {
  it('when e-mail and credits are valid, then the credits map keeps numeric strings as numbers', () => {
    expect(newAccount({ email: 'a@b.c', credits: { '1': 100, '14': '50' } })).toEqual({
      values: {
        email: 'a@b.c',
        credits: new Map([
          [1, 100],
          [14, 50],
        ]),
      },
    });
  });

  it('when credits are absent or null, then no pool is named', () => {
    expect(newAccount({ email: 'a@b.c' })).toEqual({ values: { email: 'a@b.c', credits: new Map() } });
    expect(newAccount({ email: 'a@b.c', credits: null })).toEqual({ values: { email: 'a@b.c', credits: new Map() } });
  });

  it.each([{}, { email: null }, { email: '' }])('when the e-mail is not given (%p), then the required message', (body) => {
    expect(newAccount(body)).toEqual({ email: ['The email field is required.'] });
  });

  it.each([
    ['a display name hiding another recipient', 'x<attacker@evil.com>'],
    ['a named mailbox', 'Ann <ann@example.com>'],
    ['a CR/LF', 'ann@example.com\r\nBcc: attacker@evil.com'],
    ['more than 254 characters', `${'a'.repeat(243)}@example.com`],
    ['a number', 5],
  ])('when the e-mail is %s, then it is invalid (an addr-spec only)', (_what, email) => {
    expect(newAccount({ email })).toEqual({ email: ['The selected email is invalid.'] });
  });

  it.each<[unknown, string]>([
    [{ x: 1 }, 'credits'],
    [{ 0: 1 }, 'credits'],
    [[5], 'credits'],
    ['1=5', 'credits'],
    [{ 1: -5 }, 'credits.1'],
    [{ '007': 'lots' }, 'credits.7'],
    [{ 1: null }, 'credits.1'],
  ])('when credits are %p, then %s is invalid', (credits, field) => {
    expect(newAccount({ email: 'a@b.c', credits })).toEqual({ [field]: [`The selected ${field} is invalid.`] });
  });

  it('when several fields are wrong, then all are reported together, in the body’s order', () => {
    expect(JSON.stringify(newAccount({ credits: { 1: -1, x: 2 }, email: 'x' }))).toBe(
      JSON.stringify({
        email: ['The selected email is invalid.'],
        'credits.1': ['The selected credits.1 is invalid.'],
        credits: ['The selected credits is invalid.'],
      }),
    );
  });
});

describe('the body of POST /admin/v1/accounts/{id}/credits', () => {
  it('when the amount is a negative JSON number and the product id a numeric string, then both are read', () => {
    expect(creditChange({ productId: '1', amount: -5 })).toEqual({ values: { productId: 1, amount: -5 } });
  });

  it('when a reason is given, then it is kept; an empty one counts as none', () => {
    expect(creditChange({ productId: 1, amount: 5, reason: 'goodwill' })).toEqual({
      values: { productId: 1, amount: 5, reason: 'goodwill' },
    });
    expect(creditChange({ productId: 1, amount: 5, reason: '' })).toEqual({ values: { productId: 1, amount: 5 } });
  });

  it('when both are missing, then both required messages', () => {
    expect(creditChange({ productId: null })).toEqual({
      productId: ['The product id field is required.'],
      amount: ['The amount field is required.'],
    });
  });

  it.each<[Record<string, unknown>, string]>([
    [{ productId: 0, amount: 5 }, 'productId'],
    [{ productId: 1.5, amount: 5 }, 'productId'],
    [{ productId: 1, amount: '-5' }, 'amount'],
    [{ productId: 1, amount: 1e13 }, 'amount'],
    [{ productId: 1, amount: true }, 'amount'],
    [{ productId: 1, amount: 5, reason: 'x'.repeat(501) }, 'reason'],
    [{ productId: 1, amount: 5, reason: 7 }, 'reason'],
  ])('when the body is %p, then %s is invalid', (body, field) => {
    expect(creditChange(body)).toEqual({ [field]: [expect.stringMatching(/^The selected .* is invalid\.$/)] });
  });
});

describe('the account id in the path', () => {
  it.each(['1', '2147483647', '007'])('when the id is %p, then it is read as a number', (raw) => {
    expect(outcome(() => validatePath(changeCreditsRoute.pathParams, { id: raw }))).toEqual({ values: { id: Number(raw) } });
  });

  it.each(['0', '-1', 'abc', '2147483648', '1.0', ''])('when the id is %p, then it names nothing: not_found', (raw) => {
    expect(outcome(() => validatePath(changeCreditsRoute.pathParams, { id: raw }))).toBe('not_found');
  });
});
