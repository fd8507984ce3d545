import { generateApiKey, generateAccessToken, hashSecret } from '@platform/credentials';
import { apiKeyFromBearer } from './bearer-api-key';

describe('apiKeyFromBearer', () => {
  const apiKey = generateApiKey();
  const standard = Buffer.from(apiKey).toString('base64');

  test('when the value is standard Base64 of a key with padding, then it is the key', () => {
    expect(standard.endsWith('=')).toBe(true);
    expect(apiKeyFromBearer(standard)).toBe(apiKey);
  });

  test('when the value is Base64 without padding, then it is the key', () => {
    expect(apiKeyFromBearer(standard.replace(/=+$/, ''))).toBe(apiKey);
  });

  test('when the value is URL-safe Base64 (with or without padding), then it is the key', () => {
    // Base64 of an ASCII key never holds + or /, so both alphabets spell it alike; the decoder takes either.
    const urlSafe = Buffer.from(apiKey).toString('base64url');
    expect(apiKeyFromBearer(urlSafe)).toBe(apiKey);
    expect(apiKeyFromBearer(`${urlSafe}=`)).toBe(apiKey);
  });

  test('when the value mixes URL-safe characters into Base64, then they decode as in the standard alphabet', () => {
    // Not Base64 of a key, whichever alphabet: nothing to accept, and no exception either.
    expect(apiKeyFromBearer('-_-_' + standard.slice(4))).toBeUndefined();
  });

  test('when the value is the raw key, then it is the key', () => {
    expect(apiKeyFromBearer(apiKey)).toBe(apiKey);
  });

  test.each([
    ['an access token', generateAccessToken(hashSecret(apiKey))],
    ['Base64 of a token', Buffer.from(generateAccessToken(hashSecret(apiKey))).toString('base64')],
    ['Base64 of something else', Buffer.from('hello world').toString('base64')],
    ['Base64 of a key with one character cut', standard.slice(0, -2)],
    ['not Base64 at all', '!!!not-base64!!!'],
    ['too much padding', `${standard}==`],
    ['a key with a trailing space', `${apiKey} `],
    ['empty', ''],
  ])('when the value is %s, then there is no key', (_name, value) => {
    expect(apiKeyFromBearer(value)).toBeUndefined();
  });
});
