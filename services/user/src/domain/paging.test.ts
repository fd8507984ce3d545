import { decodeCursor, encodeCursor, page, pageOf } from './paging';

const rows = (...ids: number[]) => ids.map((id) => ({ id }));

describe('paging', () => {
  it('when a cursor is encoded, then it decodes to its id and is opaque (base64url)', () => {
    const cursor = encodeCursor(1234);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('1234');
    expect(decodeCursor(cursor)).toBe(1234);
    expect(decodeCursor(encodeCursor('987654321012345'))).toBe(987654321012345);
  });

  it('when a cursor names a bare id (the credit history’s earlier form), then it decodes too', () => {
    expect(decodeCursor(Buffer.from('42').toString('base64url'))).toBe(42);
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['zero bytes', 'AAAA'],
    ['an id of 0', encodeCursor(0)],
    ['a negative id', Buffer.from('v1:-3').toString('base64url')],
    ['an id past 15 digits', encodeCursor('1234567890123456')],
    ['another version', Buffer.from('v2:5').toString('base64url')],
    ['empty', ''],
  ])('when the cursor is %s, then it decodes to nothing', (_name, raw) => {
    expect(decodeCursor(raw)).toBeUndefined();
  });

  it('when more rows were read than the limit, then the page shows the limit and its cursor names the last shown row', () => {
    const found = pageOf(rows(9, 8, 7), 2, (row) => row.id);
    expect(found.data).toEqual(rows(9, 8));
    expect(found.nextCursor).not.toBeNull();
    expect(decodeCursor(found.nextCursor as string)).toBe(8);
  });

  it('when no more rows than the limit were read, then it is the last page (no cursor)', () => {
    expect(pageOf(rows(9, 8), 2, (row) => row.id)).toEqual({ data: rows(9, 8), nextCursor: null });
    expect(pageOf([], 2, (row: { id: number }) => row.id)).toEqual({ data: [], nextCursor: null });
  });

  it('when a page is read, then the reader is asked for one row more than the limit', async () => {
    const asked: number[] = [];
    const found = await page(3, (limit) => {
      asked.push(limit);
      return Promise.resolve(rows(5, 4, 3, 2));
    });
    expect(asked).toEqual([4]);
    expect(found.data).toEqual(rows(5, 4, 3));
    expect(decodeCursor(found.nextCursor as string)).toBe(3);
  });
});
