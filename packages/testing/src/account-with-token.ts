export interface AccountWithToken {
  id: number;
  apiKey: string;
  accessToken: string;
}

/**
 * An account created through the user service's admin API (201 expected), and a token for its key
 * from the auth service's seed flow, `POST /oauth/token` with the key as Bearer (200 expected).
 */
export async function accountWithToken(
  urls: { user: string; auth: string },
  adminToken: string,
  account: { email: string; credits: Record<string, number> },
): Promise<AccountWithToken> {
  const created = await fetch(`${urls.user}/admin/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(account),
  });
  expect(created.status).toBe(201);
  const { id, apiKey } = (await created.json()) as { id: number; apiKey: string };
  const issued = await fetch(`${urls.auth}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${Buffer.from(apiKey).toString('base64')}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ grantType: 'access_token' }),
  });
  expect(issued.status).toBe(200);
  return { id, apiKey, accessToken: ((await issued.json()) as { accessToken: string }).accessToken };
}
