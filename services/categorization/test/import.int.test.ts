import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type pg from 'pg';
import request from 'supertest';
import { createPool } from '@platform/db';
import { eventually, silentLogger } from '@platform/testing';
import { runCategoriesCli } from '../src/cli';
import type { Category } from '../src/domain/category';
import { ADMIN_TOKEN, ids, startService, TAXONOMY_FILE, temporaryDatabase, topicalRowsOfTsv, type StartedService } from './helpers';

// Made-up rows in the layout of the IAB files, written to a temporary file at run time.
const BANNER = ['Relational ID System', '', '', 'Made-up Taxonomy', '', '', '', 'Extension'].join('\t');
const HEADER = ['Unique ID', 'Parent', 'Name', 'Tier 1', 'Tier 2', 'Tier 3', 'Tier 4', ''].join('\t');
const row = (id: string, parent: string, name: string): string => [id, parent, name, name, '', '', '', ''].join('\t');
/** The first lines of the made-up files: the banner, the header, a root and its child. */
const madeUpTop = (): string[] => [BANNER, HEADER, row('1', '', 'Made-up Root'), row('2', '1', 'Made-up Child')];

async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await runCategoriesCli(args, env, out);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** Categories in their own database: the tests own the version counter and see CUS numbers from 1. */
describe('IAB taxonomy import', () => {
  const tsv = topicalRowsOfTsv();
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let folder: string;
  let started: StartedService | undefined;

  beforeAll(async () => {
    database = await temporaryDatabase();
    // createPool, as everywhere else: pg's end() resolves before its sockets close, and the database's
    // DROP ... WITH (FORCE) that follows may end one; a pool without an error listener would throw then.
    pool = createPool({ connectionString: database.url, logger: silentLogger(), max: 2 });
    folder = await mkdtemp(path.join(tmpdir(), 'categorization-'));
  });

  afterAll(async () => {
    await started?.service.stop();
    await pool.end();
    await database.drop();
    await rm(folder, { recursive: true, force: true });
  });

  const version = async (): Promise<number> =>
    Number((await pool.query<{ version: string }>('SELECT version::text AS version FROM category_state')).rows[0]?.version);
  const storedIab = async (): Promise<Category[]> =>
    (await pool.query<Category>(`SELECT id, name, parent_id AS parent FROM categories WHERE source = 'IAB' ORDER BY num`)).rows;
  const served = async (): Promise<Category[]> => (await request(started?.service.url ?? '').get('/api/v2/categories')).body as Category[];
  const madeUpFile = async (name: string, lines: string[]): Promise<string> => {
    const file = path.join(folder, name);
    await writeFile(file, `${lines.join('\r\n')}\r\n`);
    return file;
  };

  it('when no IAB row is stored and the file cannot be read, then the start fails naming the file', async () => {
    await expect(startService({ DATABASE_URL: database.url, IAB_TAXONOMY_FILE: '/nonexistent/taxonomy.tsv' })).rejects.toThrow(
      'cannot read the IAB taxonomy file /nonexistent/taxonomy.tsv (set IAB_TAXONOMY_FILE)',
    );
  });

  it('when no IAB row is stored, then the start imports the 698 topical rows; another start imports nothing', async () => {
    const first = await startService({ DATABASE_URL: database.url });
    await first.service.stop();
    expect(await storedIab()).toEqual(tsv);
    const versionAfterImport = await version();

    started = await startService({ DATABASE_URL: database.url, CATEGORY_REFRESH_INTERVAL_MS: '100' });
    expect(await version()).toBe(versionAfterImport);
    expect(await served()).toEqual(tsv);
  });

  it('when custom categories are created, then the IAB order interleaves them by number: IAB-1, CUS-1, IAB-2, CUS-2, IAB-3', async () => {
    const admin = (body: object): request.Test =>
      request(started?.service.url ?? '')
        .post('/admin/v1/categories')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
        .send(body);
    expect((await admin({ name: 'Made-up One', parent: 'IAB-1' })).body).toEqual({ id: 'CUS-1', name: 'Made-up One', parent: 'IAB-1' });
    expect((await admin({ name: 'Made-up Two', parent: 'CUS-1' })).body).toEqual({ id: 'CUS-2', name: 'Made-up Two', parent: 'CUS-1' });
    expect(ids(await served()).slice(0, 6)).toEqual(['IAB-1', 'CUS-1', 'IAB-2', 'CUS-2', 'IAB-3', 'IAB-4']);
  });

  it('when `categories import` is given the same file, then nothing changes and the summary says so', async () => {
    const before = await version();
    const summary = await runCli(['import', TAXONOMY_FILE], { DATABASE_URL: database.url });
    expect(summary).toEqual({
      file: path.resolve(TAXONOMY_FILE),
      topicalRows: 698,
      skipped: { blank: 1, alphanumeric: 17, extension: 481 },
      inserted: 0,
      updated: 0,
      deleted: 0,
      version: before,
      changed: false,
    });
    expect(await version()).toBe(before);
  });

  it('when the file is malformed, then the import fails with the line number and the reason, and changes nothing', async () => {
    const file = await madeUpFile('bad.tsv', [...madeUpTop(), row('3', '', ' '), row('4', '77', 'Made-up Orphan')]);
    const before = await version();
    await expect(runCli(['import', file], { DATABASE_URL: database.url })).rejects.toThrow(
      'invalid taxonomy file: line 5: Name is empty; line 6: Parent 77 is not a topical row of the file',
    );
    expect(await version()).toBe(before);
    expect(await storedIab()).toEqual(tsv);
  });

  it('when a valid file would remove an IAB category that a custom one hangs under, then it fails and changes nothing', async () => {
    const file = await madeUpFile('smaller.tsv', [HEADER, row('2', '', 'Made-up Two'), row('3', '2', 'Made-up Three')]);
    const before = await version();
    await expect(runCli(['import', file], { DATABASE_URL: database.url })).rejects.toThrow(
      /the import would remove IAB categories that other categories still hang under/,
    );
    expect(await version()).toBe(before);
    expect(await storedIab()).toEqual(tsv);
  });

  it('when a valid file differs, then the IAB rows become the file’s (updated, inserted, removed) and replicas follow; the real file restores them', async () => {
    const file = await madeUpFile('other.tsv', [...madeUpTop(), row('999', '2', 'Made-up Leaf')]);
    const before = await version();
    // A relative path is taken from where the operator typed the command (pnpm's INIT_CWD).
    const summary = await runCli(['import', 'other.tsv'], { DATABASE_URL: database.url, INIT_CWD: folder });
    expect(summary).toMatchObject({ file, topicalRows: 3, inserted: 1, updated: 2, deleted: 696, changed: true, version: before + 1 });
    const expected = [
      { id: 'IAB-1', name: 'Made-up Root', parent: null },
      { id: 'CUS-1', name: 'Made-up One', parent: 'IAB-1' },
      { id: 'IAB-2', name: 'Made-up Child', parent: 'IAB-1' },
      { id: 'CUS-2', name: 'Made-up Two', parent: 'CUS-1' },
      { id: 'IAB-999', name: 'Made-up Leaf', parent: 'IAB-2' },
    ];
    await eventually(
      async () => (JSON.stringify(await served()) === JSON.stringify(expected) ? true : undefined),
      5000,
      'the running service to serve the new rows',
    );

    const restored = await runCli(['import', TAXONOMY_FILE], { DATABASE_URL: database.url });
    expect(restored).toMatchObject({ inserted: 696, updated: 2, deleted: 1, changed: true, version: before + 2 });
    expect(await storedIab()).toEqual(tsv);
  });

  it('when the command is wrong, DATABASE_URL is missing or the file is missing, then it fails clearly', async () => {
    await expect(runCategoriesCli(['export'], { DATABASE_URL: database.url })).rejects.toThrow(
      'usage: pnpm admin categories import <file>',
    );
    await expect(runCategoriesCli(['import'], { DATABASE_URL: database.url })).rejects.toThrow(
      'usage: pnpm admin categories import <file>',
    );
    await expect(runCategoriesCli(['import', TAXONOMY_FILE], {})).rejects.toThrow(
      'DATABASE_URL is not set: `pnpm admin categories import` writes to Postgres directly, and the embedded one of `pnpm start` takes no other process',
    );
    await expect(runCategoriesCli(['import', path.join(folder, 'missing.tsv')], { DATABASE_URL: database.url })).rejects.toThrow(
      /cannot read the IAB taxonomy file .*missing\.tsv/,
    );
  });
});
