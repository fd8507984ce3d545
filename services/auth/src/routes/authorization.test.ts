import type { Request } from 'express';
import { clientCredential, readAuthorization, seedCredential } from './authorization';

function requestWith(authorization: string | undefined, body: unknown = undefined): Request {
  return { get: (name: string) => (name.toLowerCase() === 'authorization' ? authorization : undefined), body } as unknown as Request;
}
const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('readAuthorization', () => {
  test('when there is no header or an empty one, then none', () => {
    expect(readAuthorization(requestWith(undefined))).toEqual({ scheme: 'none' });
    expect(readAuthorization(requestWith('  '))).toEqual({ scheme: 'none' });
  });

  test('when the scheme is Bearer in any case, then its value', () => {
    expect(readAuthorization(requestWith('bearer abc'))).toEqual({ scheme: 'bearer', value: 'abc' });
  });

  test('when Basic carries id:secret, then both, form-decoded (RFC 6749 §2.3.1)', () => {
    expect(readAuthorization(requestWith(basic('42:at_secret')))).toEqual({ scheme: 'basic', user: '42', password: 'at_secret' });
    expect(readAuthorization(requestWith(basic('a%20b:c+d%3A')))).toEqual({ scheme: 'basic', user: 'a b', password: 'c d:' });
  });

  test('when the secret itself holds a colon, then only the first colon separates', () => {
    expect(readAuthorization(requestWith(basic('42:a:b')))).toEqual({ scheme: 'basic', user: '42', password: 'a:b' });
  });

  test.each([['Basic %%%'], [basic('no-colon')], [basic('42:%E0%A4%A')], ['Digest abc'], ['Bearer a b']])(
    'when the header is %s, then it is unreadable',
    (header) => {
      expect(readAuthorization(requestWith(header))).toEqual({ scheme: 'unreadable' });
    },
  );
});

describe('client credentials', () => {
  test('when Basic is sent, then it is the client credential', () => {
    const request = requestWith(basic('7:key'), { client_id: '8', client_secret: 'other' });
    expect(clientCredential(request, readAuthorization(request))).toEqual({ clientId: '7', apiKey: 'key' });
  });

  test('when the body carries client_secret, then it is the credential, with an empty client_id when none is given', () => {
    const withId = requestWith(undefined, { client_id: '7', client_secret: 'key' });
    expect(clientCredential(withId, readAuthorization(withId))).toEqual({ clientId: '7', apiKey: 'key' });
    const withoutId = requestWith(undefined, { client_secret: 'key' });
    expect(clientCredential(withoutId, readAuthorization(withoutId))).toEqual({ clientId: '', apiKey: 'key' });
  });

  test('when nothing is sent, or a Bearer value, then there is no client credential', () => {
    const none = requestWith(undefined, {});
    expect(clientCredential(none, readAuthorization(none))).toBeUndefined();
    const bearer = requestWith('Bearer abc', { client_secret: 'key' });
    expect(clientCredential(bearer, readAuthorization(bearer))).toBeUndefined();
  });

  test('when the seed’s Bearer is sent, then the key inside is the credential, with no client id', () => {
    expect(seedCredential({ scheme: 'bearer', value: 'garbage' })).toEqual({ clientId: undefined, apiKey: undefined });
    expect(seedCredential({ scheme: 'none' })).toBeUndefined();
  });
});
