import { hasForbiddenCharacters, MAX_NAME_LENGTH, nameLength } from './category';

/** One topical row of the IAB Content Taxonomy file. */
export interface IabRow {
  /** The Unique ID column (an integer below 1000). */
  id: number;
  /** The Name column, trimmed. */
  name: string;
  /** The Parent column: the direct parent's id, or null for a tier-1 row. */
  parent: number | null;
  /** 1-based line of the file, for messages. */
  line: number;
}

/** How many lines of each kind were left out. */
export interface SkippedLines {
  /** Lines with no content (only tabs or spaces). */
  blank: number;
  /** Rows with alphanumeric ids (Sensitive Topics, Brand Suitability and Risk). */
  alphanumeric: number;
  /** Rows with integer ids of 1000 and above (the descriptive vectors that extend the taxonomy). */
  extension: number;
}

export interface ParsedTaxonomy {
  rows: IabRow[];
  skipped: SkippedLines;
}

export interface TaxonomyProblem {
  line: number;
  reason: string;
}

const MAX_PROBLEMS_SHOWN = 10;

/** A taxonomy file that cannot be imported; nothing of it has been written. */
export class TaxonomyFileError extends Error {
  constructor(readonly problems: TaxonomyProblem[]) {
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((problem) => `line ${problem.line}: ${problem.reason}`);
    const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
    super(`invalid taxonomy file: ${shown.join('; ')}${more}`);
    this.name = 'TaxonomyFileError';
  }
}

/** Topical rows have integer ids below this; the descriptive vectors start at 1000. */
export const FIRST_EXTENSION_ID = 1000;
const INTEGER = /^[0-9]+$/;
const ALPHANUMERIC = /^[A-Za-z0-9]+$/;

interface Columns {
  id: number;
  parent: number;
  name: number;
}

function headerColumns(line: string | undefined): Columns | undefined {
  if (line === undefined) return undefined;
  const fields = line.split('\t').map((field) => field.trim());
  const columns = { id: fields.indexOf('Unique ID'), parent: fields.indexOf('Parent'), name: fields.indexOf('Name') };
  return columns.id >= 0 && columns.parent >= 0 && columns.name >= 0 ? columns : undefined;
}

function splitLines(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

type LineResult = { kind: 'row'; row: IabRow } | { kind: 'skip'; why: keyof SkippedLines } | { kind: 'problem'; reason: string };

function checkName(name: string): string | undefined {
  if (name === '') return 'Name is empty';
  if (nameLength(name) > MAX_NAME_LENGTH) return `Name is longer than ${MAX_NAME_LENGTH} characters`;
  if (hasForbiddenCharacters(name)) return 'Name contains a control character';
  return undefined;
}

function readLine(line: string, lineNumber: number, columns: Columns): LineResult {
  const fields = line.split('\t').map((field) => field.trim());
  if (fields.every((field) => field === '')) return { kind: 'skip', why: 'blank' };
  const rawId = fields[columns.id] ?? '';
  if (rawId === '') return { kind: 'problem', reason: 'Unique ID is empty' };
  if (!INTEGER.test(rawId)) {
    if (ALPHANUMERIC.test(rawId)) return { kind: 'skip', why: 'alphanumeric' };
    return { kind: 'problem', reason: `Unique ID "${rawId}" is neither an integer nor an alphanumeric id` };
  }
  const id = Number(rawId);
  if (id >= FIRST_EXTENSION_ID) return { kind: 'skip', why: 'extension' };
  if (id === 0) return { kind: 'problem', reason: 'Unique ID 0 is not a valid id' };
  const name = fields[columns.name] ?? '';
  const nameProblem = checkName(name);
  if (nameProblem !== undefined) return { kind: 'problem', reason: nameProblem };
  const rawParent = fields[columns.parent] ?? '';
  if (rawParent === '') return { kind: 'row', row: { id, name, parent: null, line: lineNumber } };
  if (!INTEGER.test(rawParent) || Number(rawParent) >= FIRST_EXTENSION_ID) {
    return { kind: 'problem', reason: `Parent "${rawParent}" is not the id of a topical row (an integer below ${FIRST_EXTENSION_ID})` };
  }
  return { kind: 'row', row: { id, name, parent: Number(rawParent), line: lineNumber } };
}

/** Parents that are missing, the row itself, or part of a cycle. */
function checkParents(rows: IabRow[], problems: TaxonomyProblem[]): void {
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const row of rows) {
    if (row.parent === null) continue;
    if (row.parent === row.id) {
      problems.push({ line: row.line, reason: `Parent ${row.parent} is the row itself` });
      continue;
    }
    if (!byId.has(row.parent)) {
      problems.push({ line: row.line, reason: `Parent ${row.parent} is not a topical row of the file` });
      continue;
    }
    const seen = new Set([row.id]);
    for (let ancestor = byId.get(row.parent); ancestor?.parent != null; ancestor = byId.get(ancestor.parent)) {
      if (seen.has(ancestor.parent)) {
        problems.push({ line: row.line, reason: `Parent ${row.parent} leads into a cycle of parents` });
        break;
      }
      seen.add(ancestor.id);
    }
  }
}

/**
 * Parses the IAB Tech Lab Content Taxonomy TSV (2.x layout): an optional banner line, the column
 * header (`Unique ID`, `Parent`, `Name`, …), then rows. Keeps the topical rows (integer ids below
 * 1000) and skips blank lines, alphanumeric ids and the extension rows (ids from 1000). Every
 * kept row is checked before anything is returned; any problem throws a TaxonomyFileError that
 * names each offending line.
 */
export function parseTaxonomy(text: string): ParsedTaxonomy {
  const lines = splitLines(text);
  if (lines.length === 0) throw new TaxonomyFileError([{ line: 1, reason: 'the file is empty' }]);
  const headerIndex = headerColumns(lines[0]) ? 0 : headerColumns(lines[1]) ? 1 : -1;
  const columns = headerColumns(lines[headerIndex]);
  if (!columns) {
    const line = Math.min(2, lines.length);
    throw new TaxonomyFileError([{ line, reason: 'expected the column header line (Unique ID, Parent, Name) as line 1 or 2' }]);
  }

  const rows: IabRow[] = [];
  const skipped: SkippedLines = { blank: 0, alphanumeric: 0, extension: 0 };
  const problems: TaxonomyProblem[] = [];
  const firstLineOf = new Map<number, number>();
  for (let index = headerIndex + 1; index < lines.length; index += 1) {
    const lineNumber = index + 1;
    const result = readLine(lines[index] ?? '', lineNumber, columns);
    switch (result.kind) {
      case 'skip':
        skipped[result.why] += 1;
        break;
      case 'problem':
        problems.push({ line: lineNumber, reason: result.reason });
        break;
      case 'row': {
        const first = firstLineOf.get(result.row.id);
        if (first !== undefined) {
          problems.push({ line: lineNumber, reason: `duplicate Unique ID ${result.row.id} (first on line ${first})` });
          break;
        }
        firstLineOf.set(result.row.id, lineNumber);
        rows.push(result.row);
        break;
      }
    }
  }
  checkParents(rows, problems);
  if (problems.length === 0 && rows.length === 0) {
    problems.push({ line: lines.length, reason: `no topical rows (integer ids below ${FIRST_EXTENSION_ID}) in the file` });
  }
  if (problems.length > 0) throw new TaxonomyFileError(problems.sort((a, b) => a.line - b.line));
  return { rows, skipped };
}
