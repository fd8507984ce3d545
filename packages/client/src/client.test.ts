import { ApiError } from './api-error.js';
import { AccountAccessClient } from './client.js';

describe('AccountAccessClient without a usable key', () => {
  it.each(['', 'at_ключ', 'at_with space'])('when the key is %j, then accessToken() fails before any request', async (apiKey) => {
    const requests: string[] = [];
    const client = new AccountAccessClient({
      apiKey,
      authUrl: 'http://auth.invalid',
      userUrl: 'http://user.invalid',
      categorizationUrl: 'http://categorization.invalid',
      fetch: (input) => {
        requests.push(input);
        return Promise.reject(new Error('no request was expected'));
      },
    });

    const failure = await client.accessToken().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 0, code: 'invalid_api_key' });
    expect(requests).toEqual([]);
  });
});
