import fc from 'fast-check';
import { isMailboxAddress } from './email-address';

describe('isMailboxAddress', () => {
  it.each(['a@b.c', 'ann@example.com', 'first.last+tag@mail.example.co.uk', "o'neil@example.org", 'x_y-z@sub-domain.example'])(
    'when the address is a bare addr-spec (%s), then it is accepted',
    (address) => {
      expect(isMailboxAddress(address)).toBe(true);
    },
  );

  it.each([
    ['a display name around an address', 'x<attacker@evil.com>'],
    ['a named mailbox', 'Ann <ann@example.com>'],
    ['two recipients', 'ann@example.com,attacker@evil.com'],
    ['a CR/LF header injection', 'ann@example.com\r\nBcc: attacker@evil.com'],
    ['a bare LF', 'ann@example.com\nx'],
    ['a space', 'ann @example.com'],
    ['a quoted local part', '"ann"@example.com'],
    ['a comment', 'ann@example.com(comment)'],
    ['no domain dot', 'ann@localhost'],
    ['no at sign', 'ann.example.com'],
    ['two at signs', 'ann@x@example.com'],
    ['a domain label starting with a hyphen', 'ann@-example.com'],
    ['255 characters', `${'a'.repeat(243)}@example.com`],
  ])('when the value has %s, then it is refused', (_what, value) => {
    expect(isMailboxAddress(value)).toBe(false);
  });

  it('when a value holds any character a header or address list gives meaning to, then it is refused', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom('<', '>', ',', ';', ':', '"', '(', ')', ' ', '\r', '\n', '\\', '[', ']'),
        fc.string(),
        (before, special, after) => {
          expect(isMailboxAddress(`${before}${special}${after}@example.com`)).toBe(false);
          expect(isMailboxAddress(`ann@exa${special}${after}mple.com`)).toBe(false);
        },
      ),
    );
  });
});
