/**
 * CONTRACT §3 checked while `pnpm bench` runs: a probe asks, a few times a second, that an
 * account whose pools are all at 0 mints nothing (both flows) and that a token revoked by a
 * rotation is refused by the user service, the categorization service and introspection.
 */
import {
  clientCredentialsRequest,
  createAccount,
  mintToken,
  seedRequest,
  type BenchAccount,
  type PlatformUrls,
} from './issuance-scenarios';

export interface InvariantProbe {
  /** Stops probing; resolves with how many checks ran and which answers broke a rule. */
  stop(): Promise<{ checks: number; violations: string[] }>;
}

async function emptiedAccount(urls: PlatformUrls, adminToken: string): Promise<BenchAccount> {
  const account = await createAccount(urls.user, adminToken, { '1': 5 });
  await mintToken(urls.auth, account.apiKey);
  const emptied = await fetch(`${urls.user}/admin/v1/accounts/${account.id}/credits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ productId: 1, amount: -5 }),
  });
  if (emptied.status !== 200) throw new Error(`adjustment answered ${emptied.status}`);
  return account;
}

export async function startInvariantProbe(
  urls: PlatformUrls,
  adminToken: string,
  revoked: string,
  intervalMs = 250,
): Promise<InvariantProbe> {
  const empty = await emptiedAccount(urls, adminToken);
  const violations: string[] = [];
  let checks = 0;
  let running = true;

  const expectStatus = async (what: string, request: Promise<Response>, status: number): Promise<void> => {
    const answer = await request;
    checks += 1;
    // A 503 refuses too (revoke too much, never too little); only a success breaks the rule.
    if (answer.status !== status && answer.status < 300) violations.push(`${what}: ${answer.status}`);
  };
  const round = async (): Promise<void> => {
    await Promise.all([
      expectStatus('zero-credit seed flow', fetch(`${urls.auth}/oauth/token`, seedRequest(empty.apiKey) as RequestInit), 401),
      expectStatus(
        'zero-credit client credentials',
        fetch(`${urls.auth}/oauth/token`, clientCredentialsRequest(empty) as RequestInit),
        401,
      ),
      expectStatus(
        'revoked token, balance',
        fetch(`${urls.user}/user-service/account-balance`, { headers: { authorization: `Bearer ${revoked}` } }),
        401,
      ),
      expectStatus('revoked token, categories', fetch(`${urls.categorization}/api/v2/categories?apiKey=${revoked}`), 401),
    ]);
    const introspection = await fetch(`${urls.auth}/oauth/introspect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${revoked}`,
    });
    checks += 1;
    if (introspection.status === 200 && ((await introspection.json()) as { active: boolean }).active)
      violations.push('revoked token, introspection: active');
  };
  const loop = (async () => {
    while (running) {
      await round().catch((error: unknown) => violations.push(`probe failed: ${String(error)}`));
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();

  return {
    async stop() {
      running = false;
      await loop;
      return { checks, violations };
    },
  };
}
