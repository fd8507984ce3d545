/** A route's edge, declared once: its error envelope, the formats it answers in and its 401 challenge. */
import { type Envelope, parseOutputFormat, type OutputFormat, type Params } from '@platform/wire';

/**
 * What the kernel needs to know about a route to answer for it: declared once, where the route
 * is mounted (`handler(edge, fn)`), never set by the route's code while it runs.
 */
export interface RouteEdge {
  /** The error envelope (CONTRACT §2). */
  readonly envelope: Envelope;
  /**
   * The formats the route answers in, JSON first. With XML, `outputFormat` chooses (CONTRACT §2);
   * a JSON-only route never reads the parameter (unknown parameters are ignored).
   */
  readonly formats: readonly OutputFormat[];
  /** Whether a 401 carries WWW-Authenticate (public endpoints only, CONTRACT §9). */
  readonly challenge: boolean;
}

const JSON_ONLY: readonly OutputFormat[] = Object.freeze(['JSON']);
const JSON_OR_XML: readonly OutputFormat[] = Object.freeze(['JSON', 'XML']);

/** Declares a route's edge; by default JSON or XML with a challenge (a public endpoint). */
export function routeEdge(envelope: Envelope, options: { xml?: boolean; challenge?: boolean } = {}): RouteEdge {
  const xml = options.xml ?? envelope !== 'oauth';
  // RFC 6749 §5.2 errors are JSON: an OAuth route never answers XML.
  if (xml && envelope === 'oauth') throw new Error('an oauth route answers JSON only');
  return Object.freeze({ envelope, formats: xml ? JSON_OR_XML : JSON_ONLY, challenge: options.challenge ?? true });
}

/** The seed's public endpoints: code/messages, JSON or XML, WWW-Authenticate on 401. */
export const publicEdge: RouteEdge = routeEdge('codeMessages');
/** Admin and internal APIs (CONTRACT §7, §9): code/messages, JSON only, no WWW-Authenticate. */
export const adminEdge: RouteEdge = routeEdge('codeMessages', { xml: false, challenge: false });
/** RFC 6749/7662/7009 endpoints: OAuth errors, JSON only, WWW-Authenticate on 401. */
export const oauthEdge: RouteEdge = routeEdge('oauth');
/** Products of the lookup family (CONTRACT §4.2): ErrorMessage, JSON or XML, WWW-Authenticate on 401. */
export const productEdge: RouteEdge = routeEdge('errorMessage');

/** The kernel's decision for one request: the format it answers in, or `refused` (answered in JSON, 422 when the route validates). */
export type FormatDecision = OutputFormat | 'refused';

/**
 * The one place `outputFormat` is read (CONTRACT §2): a route whose edge answers JSON only
 * ignores it; otherwise the request's value (body, else query; case-insensitive; absent is
 * JSON) is the format, and any other value is refused.
 */
export function decideFormat(edge: RouteEdge, params: Params): FormatDecision {
  if (!edge.formats.includes('XML')) return 'JSON';
  return parseOutputFormat(params) ?? 'refused';
}
