import { ifNoneMatchHits } from './conditional-get';

describe('ifNoneMatchHits', () => {
  const etag = '"abc123"';

  it.each([
    ['"abc123"', true],
    ['W/"abc123"', true],
    ['"other", "abc123"', true],
    ['"other",W/"abc123" ', true],
    ['*', true],
    ['abc123', true],
    ['"other"', false],
    ['"abc1234"', false],
    ['"ABC123"', false],
    ['', false],
    ['"abc123', false],
  ])('when If-None-Match is %p, then the match is %p', (header, expected) => {
    expect(ifNoneMatchHits(header, etag)).toBe(expected);
  });

  it('when there is no If-None-Match, then nothing matches', () => {
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
  });
});
