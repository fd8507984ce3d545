import { spawn } from 'node:child_process';
import path from 'node:path';
import { runClientCli } from '../src/cli.js';
import { refusalTime } from '../src/refusal.js';
import { useTestPlatform } from './platform.js';

const ROOT = path.resolve(__dirname, '../../..');

describe('pnpm client', () => {
  const platform = useTestPlatform();

  function environment(apiKey: string): Record<string, string> {
    return {
      API_KEY: apiKey,
      AUTH_URL: platform.urls.auth,
      USER_URL: platform.urls.user,
      CATEGORIZATION_URL: platform.urls.categorization,
    };
  }

  async function run(args: string[], env: Record<string, string | undefined>) {
    let stdout = '';
    let stderr = '';
    const code = await runClientCli(args, env, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
    return { code, stdout, stderr };
  }

  it('when asked for the balance of one product, then it prints it as JSON', async () => {
    const account = await platform.anAccount({ '1': 70 });
    const result = await run(['balance', '--product-id', '1'], environment(account.apiKey));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual([{ productId: 1, productName: 'WHOIS API', credits: 70 }]);
  });

  it('when asked for a token, then it prints one the user service accepts', async () => {
    const account = await platform.anAccount({ '1': 70 });
    const result = await run(['token'], environment(account.apiKey));
    expect(result.code).toBe(0);
    const { accessToken } = JSON.parse(result.stdout) as { accessToken: string };
    const balance = await fetch(`${platform.urls.user}/user-service/account-balance`, {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(balance.status).toBe(200);
    await balance.body?.cancel();
  });

  it('when asked to rotate, then it prints the new key, which works while the old one is refused', async () => {
    const account = await platform.anAccount({ '1': 70 });
    const rotated = await run(['rotate'], environment(account.apiKey));
    expect(rotated.code).toBe(0);
    const { apiKey } = JSON.parse(rotated.stdout) as { apiKey: string };
    expect(apiKey).toMatch(/^at_[A-Za-z0-9]{29}$/);

    expect((await run(['balance'], environment(apiKey))).code).toBe(0);
    const refused = await run(['balance'], environment(account.apiKey));
    expect(refused.code).toBe(1);
    const { error } = JSON.parse(refused.stderr) as { error: { replacedAt: string; messages: string } };
    expect(error).toMatchObject({ status: 401, code: 401, reason: 'key_replaced' });
    // When it was replaced: the moment of the rotation above, in the sentence too.
    expect(Math.abs(Date.parse(error.replacedAt) - Date.now())).toBeLessThan(60_000);
    expect(error.messages).toBe(`This key was replaced on ${refusalTime(error.replacedAt)}: use the new key.`);
  });

  it.each<[string, (account: { id: number; apiKey: string }) => Promise<unknown>, string[], string, string]>([
    [
      'the account is disabled',
      (account) => platform.disable(account.id),
      ['balance'],
      'account_disabled',
      'This account is disabled: contact support.',
    ],
    [
      'every pool is at 0',
      () => Promise.resolve(),
      ['token'],
      'no_credits',
      'Every credit pool of this account is at 0: buy credits to get a token.',
    ],
  ])('when %s, then the refusal is worded by its reason, not the generic sentence', async (_case, arrange, args, reason, sentence) => {
    const account = await platform.anAccount({ '1': reason === 'no_credits' ? 0 : 70 });
    await arrange(account);
    const refused = await run(args, environment(account.apiKey));
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { status: 401, reason, messages: sentence } });
  });

  it('when asked for the usage history, then it prints the credits used per day and product', async () => {
    const account = await platform.anAccount({ '1': 70, '7': 10 });
    await platform.debit(account.apiKey, 1, 3);
    await platform.debit(account.apiKey, 24, 2);
    await platform.debit(account.apiKey, 7, 4);
    const today = new Date().toISOString().slice(0, 10);
    const all = await run(['usage-history', '--days', '7'], environment(account.apiKey));
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(all.stdout)).toEqual([
      { date: today, productId: 1, productName: 'WHOIS API', creditsUsed: 3 },
      { date: today, productId: 7, productName: 'Email Verification API', creditsUsed: 4 },
      { date: today, productId: 24, productName: 'Bulk WHOIS API', creditsUsed: 2 },
    ]);
    const one = await run(['usage-history', '--product-id', '7'], environment(account.apiKey));
    expect(JSON.parse(one.stdout)).toEqual([{ date: today, productId: 7, productName: 'Email Verification API', creditsUsed: 4 }]);
    const refused = await run(['usage-history', '--days', '91'], environment(account.apiKey));
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { status: 422, messages: { days: ['The selected days is invalid.'] } } });
  });

  it.each([['--help'], ['-h'], ['help'], ['balance', '--help']])(
    'when run with %s, then it prints the usage on stdout and exits 0',
    async (...args) => {
      const result = await run(args, {});
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('usage: account-access <command>');
      expect(result.stdout).toContain('pnpm -s client <command>');
      expect(result.stdout).toContain('usage-history');
    },
  );

  it('when asked for the categories by name, then it prints the whole list in that order', async () => {
    const account = await platform.anAccount();
    const result = await run(['categories', '--order', 'abc'], environment(account.apiKey));
    expect(result.code).toBe(0);
    const categories = JSON.parse(result.stdout) as Array<{ name: string }>;
    expect(categories).toHaveLength(698);
    const names = categories.map((category) => category.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('en', { sensitivity: 'base', numeric: true }).compare));
  });

  it('when the command, a flag or API_KEY is wrong, then it prints the usage and exits 2', async () => {
    const env = environment('at_anythinganythinganythingany1');
    for (const [args, reason] of [
      [['refill'], 'Unknown command: refill'],
      [[], 'No command given.'],
      [['balance', '--product-id', 'one'], '--product-id takes a product id.'],
      [['usage-history', '--days', 'week'], '--days takes a number of days (1-90).'],
      [['categories', '--order', 'size'], '--order takes IAB or ABC.'],
      [['balance', '--verbose'], "Unknown option '--verbose'"],
    ] as const) {
      const result = await run([...args], env);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain(reason);
      expect(result.stderr).toContain('usage: account-access');
    }
    const noKey = await run(['balance'], { ...env, API_KEY: undefined });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('API_KEY is not set.');
  });

  it('when run as `pnpm client balance`, then the process prints the JSON and exits 0', async () => {
    const account = await platform.anAccount({ '7': 9 });
    // Under `pnpm test`, npm_execpath is pnpm itself; run directly, pnpm is on the PATH.
    const pnpm = process.env.npm_execpath;
    const [command, args] = pnpm?.endsWith('.cjs') || pnpm?.endsWith('.js') ? [process.execPath, [pnpm]] : ['pnpm', []];
    const child = spawn(command, [...args, '--silent', 'client', 'balance'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...environment(account.apiKey) },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([{ productId: 7, productName: 'Email Verification API', credits: 9 }]);
  }, 60_000);
});
