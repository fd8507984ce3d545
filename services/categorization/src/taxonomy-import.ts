import { readFile } from 'node:fs/promises';
import { errorMessage, type Logger } from '@platform/runtime';
import { parseTaxonomy, type ParsedTaxonomy, type SkippedLines } from './domain/taxonomy-file';
import type { CategoryStore, IabImportResult } from './store/category-store';

/** What an import reports (`pnpm admin categories import` prints it as JSON). */
export interface TaxonomyImportSummary extends IabImportResult {
  file: string;
  /** Topical rows in the file (698 for Content Taxonomy 2.2). */
  topicalRows: number;
  skipped: SkippedLines;
  changed: boolean;
}

/**
 * Reads and checks the whole file. A missing file is reported with its path; a malformed one
 * throws a TaxonomyFileError naming each bad line. Nothing is written here.
 */
export async function readTaxonomyFile(file: string): Promise<ParsedTaxonomy> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = errorMessage(error);
    throw new Error(`cannot read the IAB taxonomy file ${file} (set IAB_TAXONOMY_FILE): ${reason}`, { cause: error });
  }
  return parseTaxonomy(text);
}

/** Makes the stored IAB rows equal to the file's topical rows, in one transaction. */
export async function writeTaxonomy(store: CategoryStore, file: string, parsed: ParsedTaxonomy): Promise<TaxonomyImportSummary> {
  const result = await store.replaceIab(parsed.rows);
  return {
    file,
    topicalRows: parsed.rows.length,
    skipped: parsed.skipped,
    ...result,
    changed: result.inserted + result.updated + result.deleted > 0,
  };
}

/**
 * Imports the file: checks all of it first, then writes. Importing the same file again changes
 * nothing (and leaves the version alone).
 */
export async function importTaxonomyFile(store: CategoryStore, file: string): Promise<TaxonomyImportSummary> {
  return writeTaxonomy(store, file, await readTaxonomyFile(file));
}

/** At start: imports the file only when no IAB row is stored yet (a replica that finds them reads nothing). */
export async function importTaxonomyIfMissing(store: CategoryStore, file: string, logger: Logger): Promise<void> {
  if ((await store.countIab()) > 0) return;
  const summary = await importTaxonomyFile(store, file);
  logger.info('IAB taxonomy imported', { ...summary });
}
