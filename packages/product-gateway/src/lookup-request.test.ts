import { normalizeDomainName } from './lookup-request';

describe('normalizeDomainName', () => {
  it.each([
    ['example.com', 'example.com'],
    ['WWW.Example.COM.', 'www.example.com'],
    ['  example.org ', 'example.org'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['sub.domain.co.uk', 'sub.domain.co.uk'],
    ['example.xn--p1ai', 'example.xn--p1ai'],
    ['8.8.8.8', '8.8.8.8'],
    ['2001:db8::1', '2001:db8::1'],
  ])('when the value is %p, then it is accepted as %p', (value, expected) => {
    expect(normalizeDomainName(value)).toBe(expected);
  });

  it.each([
    [''],
    ['com'],
    ['localhost'],
    ['exa mple.com'],
    ['-a.com'],
    ['a-.com'],
    ['a..com'],
    ['user@example.com'],
    ['example.com:80'],
    ['http://example.com'],
    ['example.c0m'],
    [`${'a'.repeat(64)}.com`],
    [`${'a.'.repeat(127)}com`],
  ])('when the value is %p, then it is refused', (value) => {
    expect(normalizeDomainName(value)).toBeUndefined();
  });
});
