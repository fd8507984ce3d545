const QUOTED = /^"([^"]*)"$/;
const BARE = /^[^"\s]+$/;

function opaque(tag: string): string | undefined {
  const unweakened = tag.startsWith('W/') ? tag.slice(2) : tag;
  const quoted = QUOTED.exec(unweakened);
  if (quoted) return quoted[1];
  // Lenient clients send the tag without its quotes.
  return BARE.test(unweakened) ? unweakened : undefined;
}

/**
 * Whether `If-None-Match` matches the current entity-tag (RFC 9110 §13.1.2): `*`, or a
 * comma-separated list of tags compared weakly (a `W/` prefix is ignored on either side).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const current = opaque(etag);
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || (tag !== '' && opaque(tag) === current));
}
