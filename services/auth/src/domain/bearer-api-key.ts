import { isApiKeyShape } from '@platform/credentials';

// Standard or URL-safe Base64 (a mix is tolerated), padding optional.
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The API key inside the seed's `Authorization: Bearer <base64(apiKey)>` value (CONTRACT §4.1):
 * Base64 of a key in either alphabet with or without padding, or else the raw key itself.
 * Anything else (a token, garbage) gives undefined, so no lookup is made for it.
 */
export function apiKeyFromBearer(value: string): string | undefined {
  if (BASE64.test(value)) {
    const unpadded = value.replace(/=+$/, '');
    // A Base64 length of 4n+1 cannot be decoded; Buffer would silently drop the last character.
    if (unpadded.length % 4 !== 1) {
      const decoded = Buffer.from(unpadded.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
      if (isApiKeyShape(decoded)) return decoded;
    }
  }
  return isApiKeyShape(value) ? value : undefined;
}
