import type { RequestHandler } from 'express';
import { AppError, locals } from '@platform/common';
import { constantTimeEqual, hashSecret } from './secrets';

/**
 * Guards an admin API (CONTRACT §7): `Authorization: Bearer <ADMIN_TOKEN>` before anything else,
 * JSON only, no WWW-Authenticate. Digests are compared, so neither the token nor its length
 * leaks through timing. An undefined token refuses every call.
 */
export function requireAdminToken(adminToken: string | undefined): RequestHandler {
  const expected = adminToken === undefined ? undefined : hashSecret(adminToken);
  return (req, res, next) => {
    const state = locals(res);
    state.envelope = 'codeMessages';
    state.challenge = false;
    state.outputFormat = 'JSON';
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    const valid = expected !== undefined && presented !== undefined && constantTimeEqual(hashSecret(presented), expected);
    next(valid ? undefined : new AppError('unauthenticated'));
  };
}
