import { parseTraceTrust, trustsTraceOf, dropUntrustedTraceContext } from './incoming-trust';

const from = (remoteAddress: string | undefined) => ({ socket: { remoteAddress } }) as Parameters<typeof trustsTraceOf>[0];

describe('TRACE_TRUST_INCOMING', () => {
  it.each([undefined, '', ' ', 'false', 'FALSE'])('when it is %j, then no caller continues its trace', (raw) => {
    const trust = parseTraceTrust(raw);
    expect(trust).toEqual({ kind: 'none' });
    expect(trustsTraceOf(from('127.0.0.1'), trust)).toBe(false);
  });

  it('when it is true, then every caller continues its trace', () => {
    expect(trustsTraceOf(from('203.0.113.9'), parseTraceTrust('true'))).toBe(true);
  });

  it('when it lists addresses and CIDRs, then only those peers continue theirs (IPv4-mapped IPv6 included)', () => {
    const trust = parseTraceTrust('10.0.0.0/8, 192.0.2.7, fd00::/8');
    expect(trustsTraceOf(from('10.1.2.3'), trust)).toBe(true);
    expect(trustsTraceOf(from('::ffff:10.1.2.3'), trust)).toBe(true);
    expect(trustsTraceOf(from('192.0.2.7'), trust)).toBe(true);
    expect(trustsTraceOf(from('fd12::1'), trust)).toBe(true);
    expect(trustsTraceOf(from('192.0.2.8'), trust)).toBe(false);
    expect(trustsTraceOf(from('127.0.0.1'), trust)).toBe(false);
    expect(trustsTraceOf(from(undefined), trust)).toBe(false);
  });

  it.each(['yes', '10.0.0.0/33', '10.0.0.0/', 'example.com', '1.2.3.4,,'])(
    'when it is %j, then the start stops with the variable named',
    (raw) => {
      expect(() => parseTraceTrust(raw)).toThrow(/^TRACE_TRUST_INCOMING: /);
    },
  );

  it('when an untrusted request carries trace headers, then they are removed; a trusted one keeps them', () => {
    const headers = () => ({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
      tracestate: 'a=b',
      baggage: 'k=v',
      host: 'x',
    });
    const untrusted = { ...from('198.51.100.1'), headers: headers() };
    dropUntrustedTraceContext(untrusted, parseTraceTrust('10.0.0.0/8'));
    expect(untrusted.headers).toEqual({ host: 'x' });
    const trusted = { ...from('10.0.0.1'), headers: headers() };
    dropUntrustedTraceContext(trusted, parseTraceTrust('10.0.0.0/8'));
    expect(trusted.headers).toEqual(headers());
  });
});
