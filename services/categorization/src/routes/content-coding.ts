import Negotiator from 'negotiator';
import { CONTENT_CODINGS, type ContentCoding } from '../catalog/catalog-snapshot';

// negotiator 1.x takes the server's preference for ties of quality (`br` over `gzip` for
// `Accept-Encoding: gzip, br`, CONTRACT §4.5); its type definitions predate that option.
interface PreferringNegotiator {
  encodings(available: readonly string[], options: { preferred: readonly string[] }): string[];
}

// Clients send few distinct Accept-Encoding values: each is negotiated once.
const MAX_REMEMBERED = 256;
const remembered = new Map<string, ContentCoding>();

/** The coding to answer in: the client's best by quality, `br` before `gzip` before identity on ties. */
export function preferredCoding(acceptEncoding: string | undefined): ContentCoding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity';
  const known = remembered.get(acceptEncoding);
  if (known !== undefined) return known;
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as PreferringNegotiator;
  // Nothing acceptable (`identity;q=0` alone): the identity body all the same, as most servers do.
  const coding = (negotiator.encodings(CONTENT_CODINGS, { preferred: CONTENT_CODINGS })[0] ?? 'identity') as ContentCoding;
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(acceptEncoding, coding);
  return coding;
}
