/** CSV exports of the admin API (`?format=csv`, CONTRACT §7): RFC 4180 text, streamed page by page. */
import { once } from 'node:events';
import type { Response } from 'express';
import { locals } from '@platform/kernel';
import { errorMessage } from '@platform/runtime';
import { z } from 'zod';

export type CsvCell = string | number | null;

/** `format` of the ledger and the audit log: JSON pages (the default) or every row as CSV. */
export const formatParam = z
  .enum(['json', 'csv'])
  .optional()
  .openapi({ description: '`csv`: every row that matches (all pages; `limit` and `cursor` ignored) as `text/csv`, streamed.' });

/** The 200 answer's CSV form, for the declaration. */
export const csvMedia = (columns: readonly string[]) => ({
  'text/csv': z.string().openapi({ description: `A header line \`${columns.join(',')}\`, then one line per row, newest first.` }),
});

// A text cell a spreadsheet would run as a formula starts with a quote instead (OWASP CSV injection).
const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const line = (cells: readonly CsvCell[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * Streams `batches` as CSV. The first batch is read before anything is sent, so a failure there
 * is an ordinary error answer (503, 500); a failure later can only cut the stream, which the
 * client sees as a broken transfer (no final chunk), never as a complete file.
 */
export async function streamCsv<T>(
  res: Response,
  file: string,
  columns: readonly string[],
  batches: AsyncIterable<T[]>,
  cells: (row: T) => CsvCell[],
): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  let next = await iterator.next();
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${file}"`);
  res.write(line(columns));
  try {
    while (next.done !== true) {
      // Backpressure: a slow client holds one batch in memory, not the export.
      if (!res.write(next.value.map((row) => line(cells(row))).join(''))) await once(res, 'drain');
      next = await iterator.next();
    }
    res.end();
  } catch (error) {
    locals(res).log.error('csv export cut', { error: errorMessage(error) });
    res.destroy();
  }
}
