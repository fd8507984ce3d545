/** The contract suite's check of every answer against its route's declaration (support/declared-answers.ts). */
import { checkDeclaredAnswer } from './support/declared-answers';
import type { Reply } from './support/http';

function reply(status: number, body: unknown, type = 'application/json; charset=utf-8'): Reply {
  const text = JSON.stringify(body);
  const headers = new Headers({ 'content-type': type });
  return { status, text, headers, type, header: (name) => headers.get(name), json: () => JSON.parse(text) as unknown };
}

const BALANCE = { data: [{ product_id: 1, product: { id: 1, name: 'WHOIS API' }, credits: 5 }] };

describe('declared answers', () => {
  it('when a route answers the body it declares, then it passes', () => {
    expect(() => checkDeclaredAnswer('user', 'GET', '/user-service/account-balance?apiKey=x', reply(200, BALANCE))).not.toThrow();
  });

  it('when a route answers a body its declaration does not describe, then it fails naming the field', () => {
    const drifted = { data: [{ productId: 1, credits: 5 }] };
    expect(() => checkDeclaredAnswer('user', 'GET', '/user-service/account-balance', reply(200, drifted))).toThrow(/data\.0\.product_id/);
  });

  it('when a declared error comes in another envelope than the route edge, then it fails', () => {
    expect(() =>
      checkDeclaredAnswer('user', 'GET', '/service/account-balance', reply(401, { code: 401, messages: 'Access restricted.' })),
    ).not.toThrow();
    expect(() => checkDeclaredAnswer('user', 'GET', '/service/account-balance', reply(401, { error: 'invalid_client' }))).toThrow(/401/);
  });

  it('when a path has a parameter, then its template matches', () => {
    expect(() => checkDeclaredAnswer('user', 'GET', '/admin/v1/accounts/42', reply(404, { code: 404 }))).toThrow(/messages/);
  });

  it('when the token endpoint refuses a grant, then either envelope is its declared error', () => {
    expect(() => checkDeclaredAnswer('auth', 'POST', '/oauth/token', reply(401, { error: 'invalid_client' }))).not.toThrow();
    expect(() =>
      checkDeclaredAnswer('auth', 'POST', '/oauth/token', reply(401, { code: 401, messages: 'Access restricted.' })),
    ).not.toThrow();
  });

  it('when the answer is XML, then it is left to the suites that pin it byte for byte', () => {
    expect(() =>
      checkDeclaredAnswer('user', 'GET', '/user-service/account-balance', reply(200, {}, 'application/xml; charset=utf-8')),
    ).not.toThrow();
  });
});
