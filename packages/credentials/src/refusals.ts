import { AppError, type RefusalFinding } from '@platform/wire';

/**
 * Why an API key that the access store does not know was refused: unknown, replaced by a
 * rotation (and when), or of a disabled account (CONTRACT §2, refusal reasons). The access store
 * keeps active keys only, so the answer is a lookup in Postgres, made on the refusal path alone.
 */
export type ExplainKeyRefusal = (keyHash: string) => Promise<RefusalFinding>;

/** What a request presented (`presentedCredential`): `presented` without a secret is an unreadable one. */
export interface PresentedCredential {
  secret: string | undefined;
  presented: boolean;
}

/** The 401 of a request that presented no credential at all. */
export const missingCredential = (): AppError => new AppError('unauthenticated', { reason: 'missing_credential' });

/**
 * The 401 of an API key the access store does not know (its SHA-256: `keyHash`): an
 * `invalid_credential` that `explain`, when given, makes precise once the refusal is final.
 */
export function refusedKey(keyHash: string, explain: ExplainKeyRefusal | undefined): AppError {
  return new AppError('unauthenticated', {
    reason: 'invalid_credential',
    ...(explain === undefined ? {} : { explain: () => explain(keyHash) }),
  });
}
