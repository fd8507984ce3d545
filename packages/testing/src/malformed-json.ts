/** A request a test has addressed and authenticated (supertest's Test, or anything shaped like it). */
export interface JsonRequest {
  set(field: string, value: string): JsonRequest;
  send(body: string): PromiseLike<{ status: number; body: unknown }>;
}

/**
 * Sends `call` a JSON body cut short after its first field's name (`{"<field>":`) and expects
 * the platform's answer to broken JSON: 400 `{"code":400,"messages":"Malformed request body."}`.
 */
export async function expectMalformedJson(call: JsonRequest, field: string): Promise<void> {
  const response = await call.set('Content-Type', 'application/json').send(`{"${field}":`);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({ code: 400, messages: 'Malformed request body.' });
}
