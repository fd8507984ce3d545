import type { AppError } from '@platform/wire';
import { createMemoryAccessStore } from './memory-access-store';
import type { ExplainKeyRefusal } from './refusals';
import { generateApiKey, hashSecret } from './secrets';
import { generateAccessToken } from './token-format';
import { createCredentialVerifier } from './verify';

/** A verifier over a store holding one key and a token of it, whose refusal lookups are counted. */
async function countingVerifier() {
  const apiKey = generateApiKey();
  const keyHash = hashSecret(apiKey);
  const access = createMemoryAccessStore();
  await access.putKeys([{ keyHash, accountId: 3, generation: 0, creditedPools: [1] }]);
  const token = generateAccessToken(keyHash);
  await access.issue({ keyHash, token, issuedAt: 0, ttlSeconds: 60, limit: { points: 10, windowSeconds: 60 } });
  const looked: string[] = [];
  const explainKey: ExplainKeyRefusal = (hash) => {
    looked.push(hash);
    return Promise.resolve({ reason: 'key_replaced' });
  };
  return { apiKey, token, access, looked, verifier: createCredentialVerifier({ access, explainKey }) };
}

const refusalOf = async (promise: Promise<unknown>): Promise<AppError> =>
  (await promise.then(
    () => undefined,
    (error: unknown) => error,
  )) as AppError;

describe('refusal reasons of the credential verifier', () => {
  test('when a key or a token is accepted, then no refusal lookup is made', async () => {
    const { apiKey, token, verifier, looked, access } = await countingVerifier();
    await expect(verifier.require(apiKey)).resolves.toMatchObject({ kind: 'apiKey' });
    await expect(verifier.require({ secret: token, presented: true })).resolves.toMatchObject({ kind: 'token' });
    expect(looked).toEqual([]);
    await access.close();
  });

  test('when a key is refused, then the lookup is deferred to whoever answers, and names the key by its hash only', async () => {
    const { verifier, looked, access } = await countingVerifier();
    const unknown = generateApiKey();
    const refusal = await refusalOf(verifier.require(unknown));
    expect({ code: refusal.code, reason: refusal.reason }).toEqual({ code: 'unauthenticated', reason: 'invalid_credential' });
    expect(looked).toEqual([]);
    expect(await refusal.explain?.()).toEqual({ reason: 'key_replaced' });
    expect(looked).toEqual([hashSecret(unknown)]);
    await access.close();
  });

  test('when a token or an unreadable secret is refused, then it is invalid_credential with nothing to look up', async () => {
    const { verifier, access } = await countingVerifier();
    for (const secret of [generateAccessToken(hashSecret(generateApiKey())), 'garbled']) {
      const refusal = await refusalOf(verifier.require(secret));
      expect({ reason: refusal.reason, explains: refusal.explain !== undefined }).toEqual({
        reason: 'invalid_credential',
        explains: false,
      });
    }
    await access.close();
  });

  test('when nothing was presented, then missing_credential; when something unreadable was, invalid_credential', async () => {
    const { verifier, access } = await countingVerifier();
    expect((await refusalOf(verifier.require(undefined))).reason).toBe('missing_credential');
    expect((await refusalOf(verifier.require({ secret: undefined, presented: false }))).reason).toBe('missing_credential');
    expect((await refusalOf(verifier.require({ secret: undefined, presented: true }))).reason).toBe('invalid_credential');
    await access.close();
  });
});
