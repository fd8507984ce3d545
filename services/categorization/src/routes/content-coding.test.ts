import { preferredCoding } from './content-coding';

describe('preferredCoding', () => {
  test.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['*', 'br'],
    ['deflate', 'identity'],
    ['identity', 'identity'],
    ['GZIP', 'gzip'],
    ['x;;;q==', 'identity'],
  ])('when Accept-Encoding is %p, then %s', (header, coding) => {
    expect(preferredCoding(header)).toBe(coding);
    // The second time from memory, the same answer.
    expect(preferredCoding(header)).toBe(coding);
  });
});
