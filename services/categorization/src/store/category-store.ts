import type pg from 'pg';
import { appendAdminAudit } from '@platform/accounts';
import { withTransaction } from '@platform/db';
import { nameKey, type Category } from '../domain/category';
import type { CreateOutcome, CustomCategoryWriter, DeleteOutcome } from '../domain/custom-categories';
import type { IabRow } from '../domain/taxonomy-file';

/** Every category and the version of the set they belong to (read in one statement). */
export interface CategorySet {
  version: number;
  categories: Category[];
}

/** What an import changed. */
export interface IabImportResult {
  inserted: number;
  updated: number;
  deleted: number;
  /** The category-set version after the import (bumped only when something changed). */
  version: number;
}

/** Postgres access for categories; every write bumps `category_state.version` in its own transaction. */
export interface CategoryStore extends CustomCategoryWriter {
  load(): Promise<CategorySet>;
  /** The current version only: what replicas poll. */
  version(): Promise<number>;
  countIab(): Promise<number>;
  /** Makes the IAB rows equal to `rows`: inserts, updates and deletes as needed, in one transaction. */
  replaceIab(rows: readonly IabRow[]): Promise<IabImportResult>;
}

/** An import that the database refused (a custom category in the way); nothing was written. */
export class IabImportConflictError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'IabImportConflictError';
  }
}

const LOAD = `
SELECT s.version::text AS version, c.id, c.name, c.parent_id
  FROM category_state s LEFT JOIN categories c ON true`;

// Writers take this row lock first: they run one at a time, so their checks cannot race.
const LOCK_STATE = 'SELECT version FROM category_state FOR UPDATE';
const BUMP_VERSION = 'UPDATE category_state SET version = version + 1, changed_at = now() RETURNING version::text AS version';

const UPSERT_IAB = `
INSERT INTO categories (id, source, num, name, name_key, parent_id)
SELECT 'IAB-' || r.num, 'IAB', r.num, r.name, r.name_key, 'IAB-' || r.parent
  FROM unnest($1::int[], $2::text[], $3::text[], $4::int[]) AS r (num, name, name_key, parent)
    ON CONFLICT (id) DO UPDATE
   SET name = EXCLUDED.name, name_key = EXCLUDED.name_key, parent_id = EXCLUDED.parent_id
 WHERE (categories.name, categories.name_key, categories.parent_id)
       IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.name_key, EXCLUDED.parent_id)
RETURNING (xmax = 0) AS inserted`;

const DELETE_MISSING_IAB = `DELETE FROM categories WHERE source = 'IAB' AND num <> ALL ($1::int[])`;

const SIBLING_WITH_KEY = `
SELECT 1 FROM categories
 WHERE name_key = $2 AND (parent_id = $1 OR ($1::text IS NULL AND parent_id IS NULL))`;

const INSERT_CUSTOM = `
INSERT INTO categories (id, source, num, name, name_key, parent_id)
SELECT 'CUS-' || n.num, 'CUS', n.num, $1, $2, $3
  FROM (SELECT nextval('custom_category_number')::int AS num) n
RETURNING id, name, parent_id`;

interface CategoryRow {
  id: string;
  name: string;
  parent_id: string | null;
}

function toCategory(row: CategoryRow): Category {
  return { id: row.id, name: row.name, parent: row.parent_id };
}

const FOREIGN_KEY_VIOLATION = '23503';
const UNIQUE_VIOLATION = '23505';

function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function importConflict(error: unknown): IabImportConflictError | undefined {
  const detail = (error as { detail?: unknown } | null)?.detail;
  const suffix = typeof detail === 'string' ? ` (${detail})` : '';
  const code = pgCode(error);
  if (code === FOREIGN_KEY_VIOLATION) {
    return new IabImportConflictError(`the import would remove IAB categories that other categories still hang under${suffix}`, {
      cause: error,
    });
  }
  if (code === UNIQUE_VIOLATION) {
    return new IabImportConflictError(`the import would give two sibling categories the same name${suffix}`, { cause: error });
  }
  return undefined;
}

async function bumpVersion(client: pg.PoolClient): Promise<number> {
  const result = await client.query<{ version: string }>(BUMP_VERSION);
  return Number(result.rows[0]?.version);
}

export function createCategoryStore(pool: pg.Pool): CategoryStore {
  return {
    async load() {
      const result = await pool.query<{ version: string; id: string | null; name: string | null; parent_id: string | null }>(LOAD);
      const first = result.rows[0];
      if (!first) throw new Error('category_state has no row: run the categorization migrations');
      const categories: Category[] = [];
      for (const row of result.rows) {
        if (row.id !== null && row.name !== null) categories.push(toCategory({ id: row.id, name: row.name, parent_id: row.parent_id }));
      }
      return { version: Number(first.version), categories };
    },

    async version() {
      const result = await pool.query<{ version: string }>('SELECT version::text AS version FROM category_state');
      const row = result.rows[0];
      if (!row) throw new Error('category_state has no row: run the categorization migrations');
      return Number(row.version);
    },

    async countIab() {
      const result = await pool.query<{ count: string }>(`SELECT count(*)::text AS count FROM categories WHERE source = 'IAB'`);
      return Number(result.rows[0]?.count ?? 0);
    },

    async replaceIab(rows) {
      try {
        return await withTransaction(pool, async (client) => {
          await client.query('SET CONSTRAINTS ALL DEFERRED');
          const locked = await client.query<{ version: string }>(LOCK_STATE);
          const nums = rows.map((row) => row.id);
          const upserted = await client.query<{ inserted: boolean }>(UPSERT_IAB, [
            nums,
            rows.map((row) => row.name),
            rows.map((row) => nameKey(row.name)),
            rows.map((row) => row.parent),
          ]);
          const deleted = await client.query(DELETE_MISSING_IAB, [nums]);
          const inserted = upserted.rows.filter((row) => row.inserted).length;
          const updated = upserted.rows.length - inserted;
          const changed = upserted.rows.length + (deleted.rowCount ?? 0) > 0;
          const version = changed ? await bumpVersion(client) : Number(locked.rows[0]?.version);
          // Deferred constraints are checked here, inside the transaction, so a clash is reported as such.
          await client.query('SET CONSTRAINTS ALL IMMEDIATE');
          return { inserted, updated, deleted: deleted.rowCount ?? 0, version };
        });
      } catch (error) {
        throw importConflict(error) ?? error;
      }
    },

    async createCustom(input, actor): Promise<CreateOutcome> {
      return withTransaction(pool, async (client) => {
        await client.query(LOCK_STATE);
        if (input.parent !== null) {
          const parent = await client.query('SELECT 1 FROM categories WHERE id = $1', [input.parent]);
          if (parent.rowCount === 0) return { kind: 'unknown_parent' };
        }
        const sibling = await client.query(SIBLING_WITH_KEY, [input.parent, input.nameKey]);
        if ((sibling.rowCount ?? 0) > 0) return { kind: 'duplicate_name' };
        const inserted = await client.query<CategoryRow>(INSERT_CUSTOM, [input.name, input.nameKey, input.parent]);
        const row = inserted.rows[0];
        if (!row) throw new Error('insert returned no row');
        await bumpVersion(client);
        const category = toCategory(row);
        await appendAdminAudit(client, { actor, action: 'category.create', accountId: null, details: { ...category } });
        return { kind: 'created', category };
      });
    },

    async deleteCustom(id, actor): Promise<DeleteOutcome> {
      return withTransaction(pool, async (client) => {
        await client.query(LOCK_STATE);
        const found = await client.query<CategoryRow>(`SELECT id, name, parent_id FROM categories WHERE id = $1 AND source = 'CUS'`, [id]);
        const row = found.rows[0];
        if (!row) return { kind: 'not_found' };
        const children = await client.query('SELECT 1 FROM categories WHERE parent_id = $1 LIMIT 1', [id]);
        if ((children.rowCount ?? 0) > 0) return { kind: 'has_children' };
        await client.query('DELETE FROM categories WHERE id = $1', [id]);
        await bumpVersion(client);
        await appendAdminAudit(client, { actor, action: 'category.delete', accountId: null, details: { ...toCategory(row) } });
        return { kind: 'deleted' };
      });
    },

    async exists(id) {
      const result = await pool.query('SELECT 1 FROM categories WHERE id = $1', [id]);
      return (result.rowCount ?? 0) > 0;
    },
  };
}
