import { AppError } from '@platform/wire';
import { parseAccountId, parseCreditChange, parseNewAccount } from './accounts';

function fieldsOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error.fields ?? error.code;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('parseNewAccount', () => {
  it('when e-mail and credits are valid, then the credits map keeps numeric strings as numbers', () => {
    expect(parseNewAccount({ email: 'a@b.c', credits: { '1': 100, '14': '50' } })).toEqual({
      email: 'a@b.c',
      credits: new Map([
        [1, 100],
        [14, 50],
      ]),
    });
  });

  it('when the e-mail is missing, then the required message', () => {
    expect(fieldsOf(() => parseNewAccount({}))).toEqual({ email: ['The email field is required.'] });
  });

  it.each([
    ['a display name hiding another recipient', 'x<attacker@evil.com>'],
    ['a named mailbox', 'Ann <ann@example.com>'],
    ['a CR/LF', 'ann@example.com\r\nBcc: attacker@evil.com'],
    ['more than 254 characters', `${'a'.repeat(243)}@example.com`],
  ])('when the e-mail is %s, then it is invalid (an addr-spec only)', (_what, email) => {
    expect(fieldsOf(() => parseNewAccount({ email }))).toEqual({ email: ['The selected email is invalid.'] });
  });

  it('when a credits key is not a product id, then the credits field is invalid', () => {
    expect(fieldsOf(() => parseNewAccount({ email: 'a@b.c', credits: { x: 1 } }))).toEqual({
      credits: ['The selected credits is invalid.'],
    });
  });
});

describe('parseCreditChange', () => {
  it('when the amount is a negative JSON number, then it is accepted', () => {
    expect(parseCreditChange({ productId: 1, amount: -5 })).toEqual({ productId: 1, amount: -5 });
  });

  it('when both are missing, then both required messages', () => {
    expect(fieldsOf(() => parseCreditChange({}))).toEqual({
      productId: ['The product id field is required.'],
      amount: ['The amount field is required.'],
    });
  });
});

describe('parseAccountId', () => {
  it.each(['1', '2147483647'])('when the id is %p, then it is read', (raw) => {
    expect(parseAccountId(raw)).toBe(Number(raw));
  });

  it.each(['0', '-1', 'abc', '2147483648', '1.0', ''])('when the id is %p, then not_found', (raw) => {
    expect(fieldsOf(() => parseAccountId(raw))).toBe('not_found');
  });
});
