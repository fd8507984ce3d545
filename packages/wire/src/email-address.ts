/** RFC 5321's limit on a forward path. */
export const MAX_EMAIL_LENGTH = 254;

// The HTML standard's "valid e-mail address" (an RFC 5322 addr-spec without comments, quoted
// strings or folding white space), with at least one dot in the domain.
const ADDR_SPEC =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

/**
 * Whether `value` is a bare mailbox address (`local@domain.tld`, at most 254 characters): no
 * display name, no angle brackets, comments, quotes, spaces or line breaks. Anything looser lets
 * a mail library read another recipient out of it (`x<attacker@evil.com>`).
 */
export function isMailboxAddress(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && ADDR_SPEC.test(value);
}
