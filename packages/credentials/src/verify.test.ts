import type { Request } from 'express';
import { Params } from '@platform/common';
import { createMemoryTokenStore } from './memory-token-store';
import { generateApiKey, hashSecret } from './secrets';
import { generateAccessToken } from './token-format';
import { createCredentialVerifier, presentedCredential } from './verify';
import type { KeyDirectory } from './key-directory';

const apiKey = generateApiKey();
const keys: KeyDirectory = {
  findActive: (hash) => Promise.resolve(hash === hashSecret(apiKey) ? { accountId: 3, generation: 0, hasCredits: true } : undefined),
};

describe('credential verifier', () => {
  test('when the API key is active, then it authenticates its account by the key hash', async () => {
    const verifier = createCredentialVerifier({ keys, tokens: createMemoryTokenStore() });
    expect(await verifier.verify(apiKey)).toEqual({ accountId: 3, kind: 'apiKey', secretHash: hashSecret(apiKey) });
    expect(await verifier.verify(generateApiKey())).toBeUndefined();
  });

  test('when a live token is presented, then it authenticates its account; unknown and malformed ones do not', async () => {
    const tokens = createMemoryTokenStore();
    const token = generateAccessToken();
    await tokens.mint({ tokenHash: hashSecret(token), accountId: 3, expectedGeneration: 0, issuedAt: 0, ttlSeconds: 60 });
    const lookup = jest.spyOn(tokens, 'lookup');
    const verifier = createCredentialVerifier({ keys, tokens });
    expect(await verifier.verify(token)).toMatchObject({ accountId: 3, kind: 'token' });
    expect(await verifier.verify(generateAccessToken())).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(await verifier.verify('tk_malformed')).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    await tokens.close();
  });

  test('when nothing valid is presented, then require throws the 401', async () => {
    const verifier = createCredentialVerifier({ keys, tokens: createMemoryTokenStore() });
    await expect(verifier.require(undefined)).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(verifier.require('nope')).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});

describe('presentedCredential', () => {
  const req = (authorization?: string) =>
    ({ get: (name: string) => (name.toLowerCase() === 'authorization' ? authorization : undefined) }) as unknown as Request;

  test('when apiKey is a parameter, then it wins over the Authorization header', () => {
    expect(presentedCredential(req('Bearer tok'), new Params({ apiKey: 'key' }, {}))).toEqual({ secret: 'key', presented: true });
  });

  test('when there is no apiKey, then the Bearer value is the credential', () => {
    expect(presentedCredential(req('Bearer tok'), new Params({}, {}))).toEqual({ secret: 'tok', presented: true });
  });

  test('when apiKey is an array, then a credential was presented but it is wrong', () => {
    expect(presentedCredential(req(), new Params({ apiKey: ['a', 'b'] }, {}))).toEqual({ secret: undefined, presented: true });
  });

  test('when nothing is sent, then nothing was presented', () => {
    expect(presentedCredential(req(), new Params({}, {}))).toEqual({ secret: undefined, presented: false });
  });
});
