import { isRefusalReason, type RefusalReason } from '@platform/wire';

/**
 * What `pnpm admin` says when the admin API refuses a call, by its reason (`X-Refusal-Reason`),
 * in place of the body's one sentence for every refusal. The admin API meets these three.
 */
const ADMIN_REFUSALS: Readonly<Partial<Record<RefusalReason, string>>> = {
  wrong_admin_token: 'Wrong admin token: check ADMIN_TOKEN.',
  read_only_admin: 'This admin token may only read: use a token with the admin role.',
  rate_limited: 'Too many failed admin calls from this address: wait a minute and try again.',
};

/** The sentence for an answer's refusal reason, or undefined (no reason, or none the admin API gives). */
export function adminRefusalSentence(reason: string | null): string | undefined {
  return isRefusalReason(reason) ? ADMIN_REFUSALS[reason] : undefined;
}
