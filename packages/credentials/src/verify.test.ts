import type { Request } from 'express';
import { Params } from '@platform/wire';
import { createMemoryAccessStore } from './memory-access-store';
import { generateApiKey, hashSecret } from './secrets';
import { generateAccessToken, generatePageSession, isWellFormedToken } from './token-format';
import { createCredentialVerifier, presentedCredential } from './verify';

const apiKey = generateApiKey();
const keyHash = hashSecret(apiKey);

async function storeWithKey() {
  const access = createMemoryAccessStore();
  await access.putKeys([{ keyHash, accountId: 3, generation: 0, creditedPools: [1] }]);
  return access;
}

/** The store with the key and a live token minted from it. */
async function storeWithToken() {
  const access = await storeWithKey();
  const token = generateAccessToken(keyHash);
  await access.issue({ keyHash, token, issuedAt: 0, ttlSeconds: 60, limit: { points: 10, windowSeconds: 60 } });
  return { access, token };
}

describe('credential verifier', () => {
  test('when the account is at 0, then a page session is still issued, and only a page-session verifier accepts it until a rotation', async () => {
    const access = createMemoryAccessStore();
    await access.putKeys([{ keyHash, accountId: 3, generation: 0, creditedPools: [] }]);
    const limit = { points: 10, windowSeconds: 60 };
    const token = generateAccessToken(keyHash);
    expect(await access.issue({ keyHash, token, issuedAt: 0, ttlSeconds: 60, limit })).toEqual({ outcome: 'no_credits' });
    const session = generatePageSession(keyHash);
    expect(isWellFormedToken(session)).toBe(false);
    expect(await access.issue({ keyHash, token: session, issuedAt: 0, ttlSeconds: 60, limit, anyBalance: true })).toMatchObject({
      outcome: 'issued',
    });
    expect(await createCredentialVerifier({ access }).verify(session)).toBeUndefined();
    const pages = createCredentialVerifier({ access, pageSessions: true });
    expect(await pages.verify(session)).toEqual({ accountId: 3, kind: 'pageSession', secretHash: hashSecret(session) });
    // A rotation raises the generation: the session, like every token of the old key, is refused.
    await access.putKeys([{ keyHash, accountId: 3, generation: 1, creditedPools: [] }]);
    expect(await pages.verify(session)).toBeUndefined();
    await access.close();
  });

  test('when the API key is active, then it authenticates its account by the key hash', async () => {
    const access = await storeWithKey();
    const verifier = createCredentialVerifier({ access });
    expect(await verifier.verify(apiKey)).toEqual({ accountId: 3, kind: 'apiKey', secretHash: keyHash });
    expect(await verifier.verify(generateApiKey())).toBeUndefined();
    await access.close();
  });

  test('when a live token is presented, then it authenticates its account; unknown and malformed ones do not', async () => {
    const { access, token } = await storeWithToken();
    const lookup = jest.spyOn(access, 'lookupToken');
    const verifier = createCredentialVerifier({ access });
    expect(await verifier.verify(token)).toMatchObject({ accountId: 3, kind: 'token', secretHash: hashSecret(token) });
    expect(await verifier.verify(generateAccessToken(keyHash))).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(await verifier.verify('tk_malformed')).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    await access.close();
  });

  test('when the key of a token is no longer active, then the token is refused', async () => {
    const { access, token } = await storeWithToken();
    await access.deleteKeys([keyHash]);
    expect(await createCredentialVerifier({ access }).verify(token)).toBeUndefined();
    await access.close();
  });

  test('when many requests check one secret in the same turn, then they share one lookup and each gets its own answer', async () => {
    const { access, token } = await storeWithToken();
    const lookup = jest.spyOn(access, 'lookupToken');
    const findKeys = jest.spyOn(access, 'findKeys');
    const verifier = createCredentialVerifier({ access });
    const unknown = generateAccessToken(keyHash);
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => verifier.verify(token)),
      ...Array.from({ length: 20 }, () => verifier.verify(apiKey)),
      verifier.verify(unknown),
    ]);
    expect(answers.slice(0, 20)).toEqual(Array(20).fill({ accountId: 3, kind: 'token', secretHash: hashSecret(token) }));
    expect(answers.slice(20, 40)).toEqual(Array(20).fill({ accountId: 3, kind: 'apiKey', secretHash: keyHash }));
    expect(answers[40]).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    expect(findKeys).toHaveBeenCalledTimes(1);
    expect(findKeys).toHaveBeenCalledWith([keyHash]);
    await access.close();
  });

  test('when checks of several API keys arrive in the same turn, then their records are read in one call and each gets its own key’s answer', async () => {
    const { access } = await storeWithToken();
    const other = generateApiKey();
    await access.putKeys([{ keyHash: hashSecret(other), accountId: 4, generation: 0, creditedPools: [] }]);
    const unknown = generateApiKey();
    const findKeys = jest.spyOn(access, 'findKeys');
    const verifier = createCredentialVerifier({ access });
    const answers = await Promise.all([verifier.verify(apiKey), verifier.verify(unknown), verifier.verify(other), verifier.verify(apiKey)]);
    expect(answers).toEqual([
      { accountId: 3, kind: 'apiKey', secretHash: keyHash },
      undefined,
      { accountId: 4, kind: 'apiKey', secretHash: hashSecret(other) },
      { accountId: 3, kind: 'apiKey', secretHash: keyHash },
    ]);
    expect(findKeys).toHaveBeenCalledTimes(1);
    expect(findKeys).toHaveBeenCalledWith([keyHash, hashSecret(unknown), hashSecret(other)]);
    await access.close();
  });

  test('when hundreds of checks of a few API keys arrive in the same turn (product batches), then each key is read once, in one call', async () => {
    const access = createMemoryAccessStore();
    const keys = Array.from({ length: 7 }, () => generateApiKey());
    await access.putKeys(keys.map((key, index) => ({ keyHash: hashSecret(key), accountId: index + 1, generation: 0, creditedPools: [1] })));
    const findKeys = jest.spyOn(access, 'findKeys');
    const verifier = createCredentialVerifier({ access });
    const checked = Array.from({ length: 700 }, (_, index) => keys[index % 7] as string);

    const answers = await Promise.all(checked.map((key) => verifier.verify(key)));

    expect(answers.map((answer) => answer?.accountId)).toEqual(checked.map((_, index) => (index % 7) + 1));
    expect(findKeys.mock.calls.map(([hashes]) => [...hashes].sort())).toEqual([keys.map(hashSecret).sort()]);
    await access.close();
  });

  test('when a token is revoked while a lookup of it is in flight, then a check that arrives after the revocation is refused', async () => {
    const { access, token } = await storeWithToken();
    const lookupToken = access.lookupToken.bind(access);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const firstLookupStarted = new Promise<void>((resolve) => (started = resolve));
    // The first lookup reads the store, then its answer is held back until the test lets it go.
    jest.spyOn(access, 'lookupToken').mockImplementationOnce(async (...args) => {
      const answer = await lookupToken(...args);
      started();
      await held;
      return answer;
    });
    const verifier = createCredentialVerifier({ access });
    const before = verifier.verify(token);
    await firstLookupStarted;
    await access.deleteKeys([keyHash]);
    const after = verifier.verify(token);
    release();
    expect(await before).toMatchObject({ accountId: 3, kind: 'token' });
    expect(await after).toBeUndefined();
    await access.close();
  });

  test('when nothing valid is presented, then require throws the 401', async () => {
    const access = createMemoryAccessStore();
    const verifier = createCredentialVerifier({ access });
    await expect(verifier.require(undefined)).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(verifier.require('nope')).rejects.toMatchObject({ code: 'unauthenticated' });
    await access.close();
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
