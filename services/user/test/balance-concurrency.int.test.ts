import { item, useHarness } from './harness';

// Balance reads of concurrent requests share Postgres round trips (one query per turn of the
// event loop). Each request must still get exactly its own account's answer.

const h = useHarness();

describe('concurrent balance reads', () => {
  it('when many accounts read at once by key and by token, then each gets its own balance', async () => {
    const accounts = await Promise.all(
      Array.from({ length: 12 }, (_, index) => h.account(index % 3 === 2 ? {} : { 1: 100 + index, 7: index })),
    );
    const tokens = await Promise.all(accounts.map((account) => h.token(account)));
    const expected = (index: number) =>
      index % 3 === 2
        ? []
        : [item(1, 'WHOIS API', 100 + index), item(7, 'Email Verification API', index), item(24, 'Bulk WHOIS API', 100 + index)];

    const calls = accounts.flatMap((account, index) => [
      h.http
        .get('/user-service/account-balance')
        .query({ apiKey: account.apiKey })
        .then((res) => ({ index, res, productId: undefined })),
      h.http
        .get('/user-service/account-balance')
        .set('Authorization', `Bearer ${tokens[index] as string}`)
        .then((res) => ({ index, res, productId: undefined })),
      h.http
        .get('/user-service/account-balance')
        .query({ apiKey: account.apiKey, productId: 24 })
        .then((res) => ({ index, res, productId: 24 })),
      h.http
        .get('/user-service/account-balance')
        .query({ apiKey: tokens[index] as string, productId: 7 })
        .then((res) => ({ index, res, productId: 7 })),
    ]);
    const unknownKey = h.http.get('/user-service/account-balance').query({ apiKey: `at_${'Z'.repeat(29)}` });
    const results = await Promise.all(calls);
    for (const { index, res, productId } of results) {
      expect(res.status).toBe(200);
      const all = expected(index);
      expect(res.body).toEqual({ data: productId === undefined ? all : all.filter((entry) => entry.product_id === productId) });
    }
    expect((await unknownKey).status).toBe(401);
  });

  it('when the same account reads many times at once, then every answer is whole and alike', async () => {
    const account = await h.account({ 14: 5 });
    const token = await h.token(account);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        index % 2 === 0
          ? h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })
          : h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${token}`),
      ),
    );
    const first = answers[0]?.body as { data: unknown[] };
    expect(first.data).toHaveLength(11);
    for (const answer of answers) expect(answer.body).toEqual(first);
  });

  it('when a key is replaced while reads are in flight, then the replaced key is refused afterwards', async () => {
    const account = await h.account({ 1: 10 });
    const before = await h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey });
    expect(before.status).toBe(200);
    const rotated = await h.http.get('/user-service/api-key/generate').query({ currentApiKey: account.apiKey });
    expect(rotated.status).toBe(200);
    const after = await Promise.all(
      Array.from({ length: 5 }, () => h.http.get('/user-service/account-balance').query({ apiKey: account.apiKey })),
    );
    expect(after.map((res) => res.status)).toEqual([401, 401, 401, 401, 401]);
    const fresh = await h.http.get('/user-service/account-balance').query({ apiKey: (rotated.body as { apiKey: string }).apiKey });
    expect(fresh.body).toEqual({ data: [item(1, 'WHOIS API', 10), item(24, 'Bulk WHOIS API', 10)] });
  });
});
