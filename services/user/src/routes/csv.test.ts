import { EXPORT_BATCH, everyRow } from '../domain/operator';
import { csvCell } from './csv';

describe('csvCell (RFC 4180)', () => {
  it.each<[string | number | null, string]>([
    ['plain', 'plain'],
    [42, '42'],
    [-7, '-7'],
    [null, ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("x")', '"\'=HYPERLINK(""x"")"'],
    ['@sum', "'@sum"],
  ])('when the cell is %p, then it is written %p', (value, written) => {
    expect(csvCell(value)).toBe(written);
  });
});

describe('everyRow (keyset export)', () => {
  it('when the rows span several batches, then every row once, newest first, one batch at a time', async () => {
    const ids = Array.from({ length: 2 * EXPORT_BATCH + 1 }, (_unused, index) => 2 * EXPORT_BATCH + 1 - index);
    const reads: Array<number | undefined> = [];
    const read = (before: number | undefined, limit: number) => {
      reads.push(before);
      return Promise.resolve(
        ids
          .filter((id) => before === undefined || id < before)
          .slice(0, limit)
          .map((id) => ({ id })),
      );
    };
    const batches: number[][] = [];
    for await (const batch of everyRow(read)) batches.push(batch.map((row) => row.id));
    expect(batches.map((batch) => batch.length)).toEqual([EXPORT_BATCH, EXPORT_BATCH, 1]);
    expect(batches.flat()).toEqual(ids);
    expect(reads).toEqual([undefined, EXPORT_BATCH + 2, 2]);
  });

  it('when the rows fill the last batch exactly, then one more read finds none and nothing empty is yielded', async () => {
    const ids = Array.from({ length: EXPORT_BATCH }, (_unused, index) => EXPORT_BATCH - index);
    const read = (before: number | undefined, limit: number) =>
      Promise.resolve(
        ids
          .filter((id) => before === undefined || id < before)
          .slice(0, limit)
          .map((id) => ({ id })),
      );
    const batches: number[] = [];
    for await (const batch of everyRow(read)) batches.push(batch.length);
    expect(batches).toEqual([EXPORT_BATCH]);
  });
});
