import { runUserCli } from '../src/entry-points/cli';
import { uniqueId } from '@platform/testing';
import { ADMIN_TOKEN, item, startHarness, type Harness } from './harness';

let h: Harness;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  h = await startHarness();
  env = { USER_URL: h.service.url, ADMIN_TOKEN };
});
afterAll(async () => {
  await h.stop();
});

/** Runs the CLI in-process and parses what it printed. */
async function run(args: string[], environment: NodeJS.ProcessEnv = env): Promise<Record<string, unknown>> {
  let out = '';
  await runUserCli(args, environment, (text) => {
    out += text;
  });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('pnpm admin (user commands)', () => {
  it('when an account is created with credits, then its key gets a token and the token reads the balance', async () => {
    const email = `${uniqueId('cli')}@example.test`;
    const created = await run(['accounts', 'create', '--email', email, '--credits', '1=100,14=50']);
    expect(created).toEqual({
      id: expect.any(Number),
      email,
      apiKey: expect.stringMatching(/^at_[A-Za-z0-9]{29}$/),
      createdAt: expect.any(String),
    });
    const keyBalance = await h.http.get('/user-service/account-balance').query({ apiKey: created.apiKey as string, productId: '24' });
    expect(keyBalance.body).toEqual({ data: [item(24, 'Bulk WHOIS API', 100)] });
    const token = await h.token({ apiKey: created.apiKey as string });
    const res = await h.http.get('/user-service/account-balance').set('Authorization', `Bearer ${token}`).query({ productId: '14' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [item(14, 'Domain Research Suite', 50)] });
  });

  it('when accounts show and credits add run, then they print the admin API answers', async () => {
    const created = await run(['accounts', 'create', `--email=${uniqueId('cli')}@example.test`]);
    const id = String(created.id);
    expect(await run(['credits', 'add', id, '28', '7'])).toEqual({ productId: 28, credits: 7 });
    expect(await run(['credits', 'add', id, '28', '-10'])).toEqual({ productId: 28, credits: 0 });
    expect(await run(['credits', 'add', id, '1', '3'])).toEqual({ productId: 1, credits: 3 });
    expect(await run(['accounts', 'show', id])).toEqual({
      id: created.id,
      email: created.email,
      createdAt: created.createdAt,
      disabled: false,
      balances: [item(1, 'WHOIS API', 3), item(24, 'Bulk WHOIS API', 3), item(28, 'Website Contacts & Categorization Database', 0)],
      notifications: {
        email: created.email,
        lowBalanceAlert: { enabled: true, threshold: 10 },
        zeroBalanceAlert: { enabled: true },
        webhook: null,
      },
      webhookDeliveries: [],
    });
    expect(await run(['products'])).toMatchObject({ data: expect.arrayContaining([{ id: 24, name: 'Bulk WHOIS API', pool: [1, 24] }]) });
    let csv = '';
    await runUserCli(['accounts', 'ledger', id, '--format', 'csv'], env, (text) => {
      csv += text;
    });
    expect(csv.split('\r\n')[0]).toBe('id,productId,delta,credits,cause,actor,at');
    expect(
      csv
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',').slice(2, 6).join(',')),
    ).toEqual(['3,3,top-up,admin', '-7,0,adjustment,admin', '7,7,top-up,admin']);
  });

  it('when the output is printed, then it is indented JSON ending in a newline', async () => {
    let out = '';
    await runUserCli(['accounts', 'create', '--email', `${uniqueId('cli')}@example.test`], env, (text) => {
      out += text;
    });
    expect(out).toMatch(/^\{\n {2}"id": \d+,\n[\s\S]*\n\}\n$/);
  });

  it('when the admin API refuses, then the CLI rejects with the status and message', async () => {
    await expect(run(['accounts', 'show', '2147483000'])).rejects.toThrow('admin API answered 404: Not found.');
    await expect(run(['accounts', 'show', '1'], { ...env, ADMIN_TOKEN: 'wrong-token' })).rejects.toThrow(
      'admin API answered 401: Wrong admin token: check ADMIN_TOKEN.',
    );
    await expect(run(['accounts', 'create', '--email', 'nope'])).rejects.toThrow(
      'admin API answered 422: {"email":["The selected email is invalid."]}',
    );
    await expect(run(['credits', 'add', '1', '2', '5'])).rejects.toThrow('admin API answered');
  });

  it('when the e-mail is taken, then the CLI rejects with the 409 message', async () => {
    const email = `${uniqueId('cli')}@example.test`;
    await run(['accounts', 'create', '--email', email]);
    await expect(run(['accounts', 'create', '--email', email])).rejects.toThrow(
      'admin API answered 409: An account with this e-mail already exists.',
    );
  });

  it('when an operator searches, disables, enables, rotates and reads the ledger and the audit, then each prints the answer as JSON', async () => {
    const email = `${uniqueId('cliop')}@example.test`;
    const created = await run(['accounts', 'create', '--email', email, '--credits', '1=10']);
    const id = String(created.id);
    expect(await run(['accounts', 'search', '--email', email.toUpperCase()])).toEqual({
      data: [{ id: created.id, email, createdAt: created.createdAt, disabled: false, pools: [{ pool: [1, 24], credits: 10 }] }],
      nextCursor: null,
    });
    expect(await run(['accounts', 'disable', id])).toMatchObject({ id: created.id, disabled: true });
    expect((await h.http.get('/user-service/account-balance').query({ apiKey: created.apiKey as string })).status).toBe(401);
    expect(await run(['accounts', 'enable', id])).toMatchObject({ id: created.id, disabled: false });
    expect((await h.http.get('/user-service/account-balance').query({ apiKey: created.apiKey as string })).status).toBe(200);
    const rotated = await run(['accounts', 'rotate-key', id]);
    expect(rotated.apiKey).toMatch(/^at_[A-Za-z0-9]{29}$/);
    expect(await run(['credits', 'add', id, '1', '5', '--reason', 'goodwill'])).toEqual({ productId: 1, credits: 15 });
    const ledger = (await run(['accounts', 'ledger', id])) as { data: Array<Record<string, unknown>> };
    expect(ledger.data.map((row) => [row.cause, row.delta, row.credits, row.actor])).toEqual([
      ['top-up', 5, 15, 'admin'],
      ['top-up', 10, 10, 'admin'],
    ]);
    const audit = (await run(['audit', '--account-id', id])) as { data: Array<Record<string, unknown>> };
    expect(audit.data.map((row) => [row.actor, row.action])).toEqual([
      ['admin', 'credits.top-up'],
      ['admin', 'api-key.rotate'],
      ['admin', 'account.update'],
      ['admin', 'account.update'],
      ['admin', 'account.create'],
    ]);
    expect(audit.data[0]?.details).toEqual({ productId: 1, amount: 5, reason: 'goodwill' });
  });

  it('when ADMIN_TOKEN is missing or the service unreachable, then a clear error', async () => {
    await expect(run(['accounts', 'show', '1'], { USER_URL: h.service.url })).rejects.toThrow('ADMIN_TOKEN is not set');
    await expect(run(['accounts', 'show', '1'], { USER_URL: 'http://127.0.0.1:1', ADMIN_TOKEN })).rejects.toThrow(
      'cannot reach the user service at http://127.0.0.1:1',
    );
  });
});
