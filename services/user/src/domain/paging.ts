/**
 * Keyset paging, the one way the user service pages (the credit history, the operator's search,
 * ledger and audit log): newest first, by id; a page reads one row more than it shows, whose
 * presence says there is a next page; the cursor is the last shown row's id, opaque to clients.
 */

/** A page of items, newest first, and the opaque cursor of the next page (null: the last page). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The cursor of the page after the row with this id: base64url, so that its form may change. */
export function encodeCursor(id: number | string): string {
  return Buffer.from(`v1:${id}`).toString('base64url');
}

// `v1:<id>`; a bare `<id>` is the credit history's cursor from before the two pagers were one.
const CURSOR = /^(?:v1:)?([1-9][0-9]{0,14})$/;

/** The id a cursor names (rows below it come next); undefined when it is not one of ours. */
export function decodeCursor(raw: string): number | undefined {
  const match = CURSOR.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

/** The page of `rows` read with `limit + 1`: at most `limit` of them, and the cursor when more follow. */
export function pageOf<T>(rows: readonly T[], limit: number, idOf: (row: T) => number | string): Page<T> {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(idOf(last)) : null };
}

/** Reads one more row than asked (`read(limit + 1)`) and pages them. */
export async function page<T extends { id: number }>(limit: number, read: (limit: number) => Promise<T[]>): Promise<Page<T>> {
  return pageOf(await read(limit + 1), limit, (row) => row.id);
}
