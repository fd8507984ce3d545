import { AppError, Params } from '@platform/wire';
import { readClientCredentialsRequest, readSeedTokenRequest } from './token-request';

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

/** `outputFormatRefused`: the HTTP kernel's decision on the request's outputFormat (packages/kernel route-edge.test.ts). */
const seed = (body: unknown, query: unknown = {}, outputFormatRefused = false) =>
  readSeedTokenRequest(new Params(query, body), outputFormatRefused);

describe('readSeedTokenRequest', () => {
  test('when only the grant type is given, then the lifetime is 3600', () => {
    expect(seed({ grantType: 'access_token' })).toEqual({ expiresIn: 3600 });
  });

  test.each([1800, 3600, 7200, 10800])('when expiresIn is %i as a number or a numeric string, then it is granted', (seconds) => {
    expect(seed({ grantType: 'access_token', expiresIn: seconds }).expiresIn).toBe(seconds);
    expect(seed({ grantType: 'access_token', expiresIn: String(seconds) }).expiresIn).toBe(seconds);
  });

  test('when the kernel refused the outputFormat alone, then 422 with the outputFormat message', () => {
    expect(failure(() => seed({ grantType: 'access_token', outputFormat: 'yaml' }, {}, true)).fields).toEqual({
      outputFormat: ['The selected output format is invalid.'],
    });
  });

  test('when the grant type is missing, then 422 with the required message', () => {
    expect(failure(() => seed({})).fields).toEqual({ grantType: ['The grant type field is required.'] });
  });

  test('when the grant type is an empty string or null, then it counts as missing', () => {
    expect(failure(() => seed({ grantType: '' })).fields).toEqual({ grantType: ['The grant type field is required.'] });
    expect(failure(() => seed({ grantType: null })).fields).toEqual({ grantType: ['The grant type field is required.'] });
  });

  test.each([['client_credentials'], ['ACCESS_TOKEN'], [['access_token']], [{ a: 1 }], [true]])(
    'when the grant type is %j, then 422 with the invalid message',
    (grantType) => {
      expect(failure(() => seed({ grantType })).fields).toEqual({ grantType: ['The selected grant type is invalid.'] });
    },
  );

  test.each([[60], ['60'], [3600.5], ['3600.0'], ['-3600'], [' 3600'], [[3600]], [false]])(
    'when expiresIn is %j, then 422 with the invalid message',
    (expiresIn) => {
      expect(failure(() => seed({ grantType: 'access_token', expiresIn })).fields).toEqual({
        expiresIn: ['The selected expires in is invalid.'],
      });
    },
  );

  test('when several fields are wrong, then they are reported together', () => {
    expect(failure(() => seed({ expiresIn: 5, outputFormat: 'yaml' }, {}, true)).fields).toEqual({
      grantType: ['The grant type field is required.'],
      expiresIn: ['The selected expires in is invalid.'],
      outputFormat: ['The selected output format is invalid.'],
    });
  });
});

const rfc = (body: unknown) => readClientCredentialsRequest(new Params({}, body));

describe('readClientCredentialsRequest', () => {
  test('when the grant is client_credentials, then the default lifetime is 3600', () => {
    expect(rfc({ grant_type: 'client_credentials' })).toEqual({ expiresIn: 3600 });
  });

  test('when expires_in is 7200, then it is granted', () => {
    expect(rfc({ grant_type: 'client_credentials', expires_in: '7200' })).toEqual({ expiresIn: 7200 });
  });

  test('when the grant type is another one, then unsupported_grant_type', () => {
    expect(failure(() => rfc({ grant_type: 'password' })).code).toBe('unsupported_grant_type');
  });

  test('when the grant type is empty, then invalid_request', () => {
    expect(failure(() => rfc({ grant_type: '' })).fields).toEqual({ grant_type: ['The grant type field is required.'] });
  });

  test('when expires_in is not an allowed value, then invalid_request', () => {
    expect(failure(() => rfc({ grant_type: 'client_credentials', expires_in: '5' })).fields).toEqual({
      expires_in: ['The selected expires in is invalid.'],
    });
  });
});
