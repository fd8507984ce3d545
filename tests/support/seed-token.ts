import request from 'supertest';

/** The seed flow of the auth service at `authUrl`: POST /oauth/token with the API key as Bearer (base64), `body` over the grant type. */
export function seedToken(authUrl: string, apiKey: string, body: Record<string, unknown> = {}): request.Test {
  return request(authUrl)
    .post('/oauth/token')
    .set('Authorization', `Bearer ${Buffer.from(apiKey).toString('base64')}`)
    .send({ grantType: 'access_token', ...body });
}
