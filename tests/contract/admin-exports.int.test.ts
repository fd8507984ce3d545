/**
 * CONTRACT §7: the ledger and the audit log as CSV (`?format=csv`: the same rows, all pages,
 * `text/csv`), and the audit log's filters (`actor`, `action`, `accountId`, `from`, `to`).
 * Black-box, over HTTP; the CSV expected is built from the JSON pages by RFC 4180's rules.
 */
import { uniqueId } from '@platform/testing';
import { ADMIN_TOKEN, OPS_TOKEN, bearer, codeMessages, expectBody, usePlatform, type Reply } from './support';

const { send, admin } = usePlatform({ categorization: true });

const get = (path: string, query: Record<string, string> = {}): Promise<Reply> =>
  send('user', path, { headers: bearer(ADMIN_TOKEN), query });
const topUp = (id: number, amount: number, token = ADMIN_TOKEN): Promise<Reply> =>
  send('user', `/admin/v1/accounts/${id}/credits`, { headers: bearer(token), json: { productId: 1, amount } });
/** RFC 4180: a cell with a quote, comma or line break is quoted, its quotes doubled. */
const cell = (value: unknown): string => {
  const text = value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
const csv = (header: string[], rows: unknown[][]): string => [header, ...rows].map((row) => `${row.map(cell).join(',')}\r\n`).join('');

interface LedgerRow {
  id: number;
  productId: number;
  delta: number;
  credits: number;
  cause: string;
  actor: string;
  at: string;
}
interface AuditRow {
  at: string;
  actor: string;
  action: string;
  accountId: number | null;
  details: Record<string, unknown>;
}

async function account(): Promise<number> {
  return (
    (await admin('POST', '/admin/v1/accounts', { email: `${uniqueId('export')}@example.test`, credits: { 1: 1 } })).json() as { id: number }
  ).id;
}

describe('§7 ledger as CSV', () => {
  it('when ?format=csv, then text/csv with every row of every page, newest first', async () => {
    const id = await account();
    for (let index = 1; index <= 24; index += 1) expect((await topUp(id, index % 5 === 0 ? -1 : index)).status).toBe(200);
    const rows = ((await get(`/admin/v1/accounts/${id}/ledger`, { limit: '100' })).json() as { data: LedgerRow[] }).data;
    expect(rows.length).toBeGreaterThan(20);
    expect(((await get(`/admin/v1/accounts/${id}/ledger`)).json() as { data: unknown[] }).data).toHaveLength(20);
    const reply = await get(`/admin/v1/accounts/${id}/ledger`, { format: 'csv', limit: '2' });
    expect({ status: reply.status, type: reply.type, cache: reply.header('cache-control') }).toEqual({
      status: 200,
      type: 'text/csv; charset=utf-8',
      cache: 'no-store',
    });
    const header = ['id', 'productId', 'delta', 'credits', 'cause', 'actor', 'at'];
    expect(reply.text).toBe(
      csv(
        header,
        rows.map((row) => header.map((column) => row[column as keyof LedgerRow])),
      ),
    );
  });

  it('when the account is unknown or the format is not json or csv, then 404 or 422 in JSON', async () => {
    expectBody(await get('/admin/v1/accounts/987654321/ledger', { format: 'csv' }), 404, codeMessages(404, 'Not found.'));
    expectBody(
      await get(`/admin/v1/accounts/${await account()}/ledger`, { format: 'xlsx' }),
      422,
      codeMessages(422, { format: ['The selected format is invalid.'] }),
    );
  });
});

describe('§7 audit log: filters and CSV', () => {
  let first: number;
  let second: number;
  let start: string;
  let category: string;
  beforeAll(async () => {
    start = new Date(Date.now() - 1000).toISOString();
    first = await account();
    second = await account();
    await topUp(first, 5, OPS_TOKEN);
    await topUp(second, -1, OPS_TOKEN);
    await send('user', `/admin/v1/accounts/${first}`, { method: 'PATCH', headers: bearer(OPS_TOKEN), json: { disabled: true } });
    category = (
      (await admin('POST', '/admin/v1/categories', { name: `Export, "quoted" ${uniqueId()}`, parent: null }, OPS_TOKEN)).json() as {
        id: string;
      }
    ).id;
  });
  const rowsOf = async (query: Record<string, string>): Promise<AuditRow[]> => {
    const reply = await get('/admin/v1/audit', { limit: '100', ...query });
    expect(reply.status).toBe(200);
    return (reply.json() as { data: AuditRow[] }).data;
  };
  const summary = (rows: AuditRow[]) => rows.map(({ actor, action, accountId }) => `${actor} ${action} ${String(accountId)}`);

  it('when filtered by actor, then only that token’s rows, newest first', async () => {
    expect(summary(await rowsOf({ actor: 'ops', from: start }))).toEqual([
      'ops category.create null',
      `ops account.update ${first}`,
      `ops credits.adjust ${second}`,
      `ops credits.top-up ${first}`,
    ]);
  });

  it('when filtered by action, by account, or by both with the actor, then every condition holds', async () => {
    expect(summary(await rowsOf({ action: 'credits.adjust', actor: 'ops' }))).toEqual([`ops credits.adjust ${second}`]);
    expect(summary(await rowsOf({ accountId: String(first) }))).toEqual([
      `ops account.update ${first}`,
      `ops credits.top-up ${first}`,
      `admin account.create ${first}`,
    ]);
    expect(summary(await rowsOf({ accountId: String(first), actor: 'admin', action: 'account.create' }))).toEqual([
      `admin account.create ${first}`,
    ]);
  });

  it('when filtered by from and to, then the rows at or after from and before to', async () => {
    const rows = await rowsOf({ accountId: String(first) });
    const created = rows[2]?.at ?? '';
    expect(summary(await rowsOf({ accountId: String(first), to: created }))).toEqual([]);
    expect(summary(await rowsOf({ accountId: String(first), from: created, to: new Date(Date.parse(created) + 1).toISOString() }))).toEqual(
      [`admin account.create ${first}`],
    );
    expect(await rowsOf({ accountId: String(first), from: '2000-01-01', to: '2000-01-02' })).toEqual([]);
  });

  it('when ?format=csv with filters, then the same rows as text/csv, details as JSON', async () => {
    const query = { actor: 'ops', from: start };
    const rows = await rowsOf(query);
    const reply = await get('/admin/v1/audit', { ...query, format: 'csv' });
    expect({ status: reply.status, type: reply.type }).toEqual({ status: 200, type: 'text/csv; charset=utf-8' });
    expect(reply.text).toBe(
      csv(
        ['at', 'actor', 'action', 'accountId', 'details'],
        rows.map((row) => [row.at, row.actor, row.action, row.accountId === null ? null : String(row.accountId), row.details]),
      ),
    );
    expect(reply.text).toContain(category);
  });

  it.each<[Record<string, string>, Record<string, string[]>]>([
    [{ actor: 'no spaces please' }, { actor: ['The selected actor is invalid.'] }],
    [{ action: 'account.delete' }, { action: ['The selected action is invalid.'] }],
    [{ from: 'yesterday' }, { from: ['The selected from is invalid.'] }],
    [{ to: '2026-02-30T00:00:00' }, { to: ['The selected to is invalid.'] }],
    [{ from: '2026-01-02', to: '2026-01-01' }, { to: ['The selected to is invalid.'] }],
    [
      { accountId: '0', format: 'pdf' },
      { accountId: ['The selected account id is invalid.'], format: ['The selected format is invalid.'] },
    ],
  ])('when %j, then 422 naming the field, also for CSV', async (query, messages) => {
    expectBody(await get('/admin/v1/audit', query), 422, codeMessages(422, messages));
    if (query.format === undefined) expectBody(await get('/admin/v1/audit', { ...query, format: 'csv' }), 422, codeMessages(422, messages));
  });
});
