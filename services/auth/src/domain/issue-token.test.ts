import { AppError } from '@platform/wire';
import { createMemoryAccessStore, generateApiKey, hashSecret, type AccessStore } from '@platform/credentials';
import { createTokenIssuer } from './issue-token';

const NOW = 1_800_000_000_000;
const apiKey = generateApiKey();
const keyHash = hashSecret(apiKey);

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

const opened: AccessStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function storeWith(creditedPools: number[], accountId = 7, generation = 3): Promise<AccessStore> {
  const access = createMemoryAccessStore(() => NOW);
  opened.push(access);
  await access.putKeys([{ keyHash, accountId, generation, creditedPools }]);
  return access;
}

const issuerOn = (access: AccessStore, points = 100) => createTokenIssuer({ access, limit: { points, windowSeconds: 60 }, now: () => NOW });

describe('token issuer', () => {
  test('when the key is active and has credits, then a token is minted under its generation with the lifetime asked for', async () => {
    const access = await storeWith([1]);
    const issued = await issuerOn(access).issue({ apiKey, clientId: undefined }, 7200);
    expect(issued).toEqual({ accessToken: expect.stringMatching(/^tk_/) as unknown, expiresIn: 7200, accountId: 7 });
    expect(await access.lookupToken(issued.accessToken)).toEqual({
      accountId: 7,
      generation: 3,
      issuedAt: NOW / 1000,
      expiresAt: NOW / 1000 + 7200,
      keyHash,
    });
  });

  test('when the key is unknown, every pool is at 0, or client_id names another account, then 401 and no token', async () => {
    const empty = await storeWith([]);
    expect((await refusal(issuerOn(empty).issue({ apiKey, clientId: undefined }, 3600))).code).toBe('unauthenticated');
    const credited = await storeWith([1]);
    expect((await refusal(issuerOn(credited).issue({ apiKey: generateApiKey(), clientId: undefined }, 3600))).code).toBe('unauthenticated');
    expect((await refusal(issuerOn(credited).issue({ apiKey, clientId: '8' }, 3600))).code).toBe('unauthenticated');
    await expect(issuerOn(credited).issue({ apiKey, clientId: '7' }, 3600)).resolves.toMatchObject({ accountId: 7 });
  });

  test('when the credential cannot be a key or an account id, then 401 without a lookup', async () => {
    const access = await storeWith([1]);
    const issue = jest.spyOn(access, 'issue');
    const issuer = issuerOn(access);
    for (const credential of [
      { apiKey: undefined, clientId: undefined },
      { apiKey: 'tk_notakey', clientId: undefined },
      { apiKey, clientId: '07' },
    ]) {
      expect((await refusal(issuer.issue(credential, 3600))).code).toBe('unauthenticated');
    }
    expect(issue).not.toHaveBeenCalled();
  });

  test('when the account goes over its issuances, then 429 with the time left in the window', async () => {
    const issuer = issuerOn(await storeWith([1]), 2);
    await issuer.issue({ apiKey, clientId: undefined }, 3600);
    await issuer.issue({ apiKey, clientId: undefined }, 3600);
    const refused = await refusal(issuer.issue({ apiKey, clientId: undefined }, 3600));
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryAfterSeconds).toBe(60);
  });

  test('authenticate checks the credential and the credits without issuing', async () => {
    const issuer = issuerOn(await storeWith([]));
    expect((await refusal(issuer.authenticate({ apiKey, clientId: undefined }))).code).toBe('unauthenticated');
    await expect(issuerOn(await storeWith([1])).authenticate({ apiKey, clientId: undefined })).resolves.toBeUndefined();
  });
});
