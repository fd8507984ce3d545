import { isAllowedTarget, isRefusedAddress, parseTargetUrl } from './target';
import { MAX_WEBHOOK_ATTEMPTS, webhookRetryDelayMs } from './payload';

describe('webhook targets', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.31.255.255', true],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['224.0.0.251', true],
    ['255.255.255.255', true],
    ['0.0.0.0', true],
    ['100.64.1.1', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fc00::1', true],
    ['ff02::1', true],
    ['::ffff:10.0.0.1', true],
    // IPv6 forms that embed an IPv4 address are judged by the embedded address.
    ['::7f00:1', true],
    ['::a9fe:a9fe', true],
    ['::ffff:0:7f00:1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::10.0.0.1', true],
    ['2002:7f00:1::', true],
    ['2002:a9fe:a9fe::1', true],
    ['2002:c0a8:1::', true],
    ['::5db8:d70e', false],
    ['64:ff9b::93.184.215.14', false],
    ['2002:5db8:d70e::1', false],
    ['not an address', true],
    ['93.184.215.14', false],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', false],
  ])('%s refused: %p', (address, refused) => {
    expect(isRefusedAddress(address)).toBe(refused);
  });

  it.each(['https://[::127.0.0.1]/', 'https://[::ffff:127.0.0.1]/', 'https://[64:ff9b::169.254.169.254]/', 'https://[2002:a00:1::]/'])(
    'when the URL is %s (an IPv6 literal embedding a refused IPv4 address), then it is refused',
    async (url) => {
      await expect(isAllowedTarget(url, { allowInsecure: false })).resolves.toBe(false);
    },
  );

  it('when insecure targets are not allowed, then only https without credentials parses', () => {
    expect(parseTargetUrl('https://example.com/a', { allowInsecure: false })?.hostname).toBe('example.com');
    expect(parseTargetUrl('http://example.com/a', { allowInsecure: false })).toBeUndefined();
    expect(parseTargetUrl('http://example.com/a', { allowInsecure: true })?.protocol).toBe('http:');
    expect(parseTargetUrl('https://u:p@example.com/', { allowInsecure: true })).toBeUndefined();
    expect(parseTargetUrl(`https://example.com/${'a'.repeat(2048)}`, { allowInsecure: false })).toBeUndefined();
  });

  it('when a name resolves, then every address it resolves to must be public', async () => {
    const resolving = (resolve: (host: string) => Promise<string[]>) => ({ allowInsecure: false, network: { resolve, exempt: [] } });
    await expect(
      isAllowedTarget(
        'https://hooks.example/',
        resolving(() => Promise.resolve(['93.184.215.14'])),
      ),
    ).resolves.toBe(true);
    await expect(
      isAllowedTarget(
        'https://hooks.example/',
        resolving(() => Promise.resolve(['93.184.215.14', '10.0.0.1'])),
      ),
    ).resolves.toBe(false);
    await expect(
      isAllowedTarget(
        'https://hooks.example/',
        resolving(() => Promise.reject(new Error('ENOTFOUND'))),
      ),
    ).resolves.toBe(false);
    await expect(isAllowedTarget('https://hooks.example/', { allowInsecure: true })).resolves.toBe(true);
  });

  it('when a test network exempts an endpoint, then only that exact address and port pass; everything else is checked', async () => {
    const policy = { allowInsecure: false, network: { resolve: () => Promise.resolve(['127.0.0.1']), exempt: ['127.0.0.1:8443'] } };
    await expect(isAllowedTarget('https://receiver.test:8443/hooks', policy)).resolves.toBe(true);
    await expect(isAllowedTarget('https://receiver.test:8444/hooks', policy)).resolves.toBe(false);
    await expect(isAllowedTarget('https://receiver.test/hooks', policy)).resolves.toBe(false);
    await expect(isAllowedTarget('https://127.0.0.2:8443/hooks', policy)).resolves.toBe(false);
    await expect(isAllowedTarget('http://receiver.test:8443/hooks', policy)).resolves.toBe(false);
  });

  it('when attempts fail, then retries back off exponentially and span more than 24 hours before giving up', () => {
    expect([1, 2, 3].map((attempt) => webhookRetryDelayMs(attempt))).toEqual([30_000, 60_000, 120_000]);
    let total = 0;
    for (let attempt = 1; attempt < MAX_WEBHOOK_ATTEMPTS; attempt += 1) total += webhookRetryDelayMs(attempt);
    expect(total).toBeGreaterThan(24 * 3600_000);
  });
});
