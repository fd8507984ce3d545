/**
 * The contract suite's HTTP client: one exchange with nothing added (no default headers beyond
 * what fetch itself sends), and the credential headers the contract names.
 */

/** Query or form parameters; an array is a repeated parameter. A string is sent as it is. */
type Fields = Record<string, string | readonly string[]> | string;

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';
  query?: Fields;
  /** A JSON body (`application/json`), serialized with JSON.stringify. */
  json?: unknown;
  /** A form body (`application/x-www-form-urlencoded`). */
  form?: Fields;
  /** A body sent byte for byte. */
  raw?: { text: string; type: string };
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  text: string;
  headers: Headers;
  /** Content-Type, or null. */
  type: string | null;
  header(name: string): string | null;
  json(): unknown;
}

function encodeFields(fields: Fields): string {
  if (typeof fields === 'string') return fields;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') search.append(name, value);
    else for (const item of value) search.append(name, item);
  }
  return search.toString();
}

/** The request's method: as given, else POST when it has a body, GET when not. */
export const methodOf = (request: HttpRequest): string =>
  request.method ?? (request.json !== undefined || request.form !== undefined || request.raw !== undefined ? 'POST' : 'GET');

/** One HTTP exchange with nothing added: no default headers beyond what fetch itself sends. */
export async function call(base: string, path: string, request: HttpRequest = {}): Promise<Reply> {
  const query = request.query === undefined ? '' : encodeFields(request.query);
  const url = `${base}${path}${query === '' ? '' : `?${query}`}`;
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['Content-Type'] ??= 'application/json';
  } else if (request.form !== undefined) {
    body = encodeFields(request.form);
    headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
  } else if (request.raw !== undefined) {
    body = request.raw.text;
    headers['Content-Type'] ??= request.raw.type;
  }
  const method = methodOf(request);
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return {
    status: response.status,
    text,
    headers: response.headers,
    type: response.headers.get('content-type'),
    header: (name) => response.headers.get(name),
    json: () => JSON.parse(text) as unknown,
  };
}

export const bearer = (value: string): Record<string, string> => ({ Authorization: `Bearer ${value}` });
export const basic = (user: string, password: string): Record<string, string> => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

/** The seed's credential: `Bearer base64(apiKey)` in one of the accepted spellings. */
export type KeyEncoding = 'base64' | 'base64 unpadded' | 'base64url' | 'base64url unpadded' | 'raw';
export function seedBearer(apiKey: string, encoding: KeyEncoding = 'base64'): Record<string, string> {
  const standard = Buffer.from(apiKey).toString('base64');
  const urlSafe = standard.replace(/\+/g, '-').replace(/\//g, '_');
  const spelled: Record<KeyEncoding, string> = {
    base64: standard,
    'base64 unpadded': standard.replace(/=+$/, ''),
    base64url: urlSafe,
    'base64url unpadded': urlSafe.replace(/=+$/, ''),
    raw: apiKey,
  };
  return bearer(spelled[encoding]);
}
