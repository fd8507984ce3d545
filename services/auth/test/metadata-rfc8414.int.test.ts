/**
 * The RFC 8414 metadata as a Python client meets it: Authlib's `AuthorizationServerMetadata.validate()`
 * (its rules in rfc8414-validator.ts) must accept it, and it must claim no flow the service lacks.
 */
import request from 'supertest';
import { startAuth, type AuthHarness } from './harness';
import { authlibMetadataError } from './rfc8414-validator';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(async () => {
  await h.close();
});

const metadata = async (): Promise<Record<string, unknown>> =>
  (await request(h.url).get('/.well-known/oauth-authorization-server').expect(200)).body as Record<string, unknown>;

describe('GET /.well-known/oauth-authorization-server, read by Authlib (RFC 8414 §2)', () => {
  test('when Authlib validates the document, then every rule passes', async () => {
    expect(authlibMetadataError(await metadata())).toBeUndefined();
  });

  test('when the response types are read, then only "none" is listed: no authorization endpoint, no code, no implicit token', async () => {
    const body = await metadata();
    expect(body.response_types_supported).toEqual(['none']);
    expect(body).not.toHaveProperty('authorization_endpoint');
    expect(body.grant_types_supported).toEqual(['client_credentials']);
  });

  test('when the validator is given the empty list the service used to serve, then it refuses it as Authlib does', () => {
    expect(
      authlibMetadataError({
        issuer: 'https://a.test',
        token_endpoint: 'https://a.test/t',
        grant_types_supported: ['client_credentials'],
        response_types_supported: [],
      }),
    ).toBe('"response_types_supported" is required');
  });
});
