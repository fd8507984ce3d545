/** The page tests' calls beside the browser: JSON in, the status and the parsed body out. */
export async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Calls the admin API with `token`, on the user service `baseUrl()` names when called (the platform starts after the import). */
export const adminCaller =
  (baseUrl: () => string, token: string) =>
  (method: string, route: string, body?: unknown): Promise<{ status: number; body: unknown }> =>
    json(`${baseUrl()}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
