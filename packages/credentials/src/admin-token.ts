import type { Request, RequestHandler, Response } from 'express';
import { adminEdge, enterRoute, locals } from '@platform/kernel';
import { AppError } from '@platform/wire';
import { secretDigest, secretsEqual } from '@platform/runtime';
import type { FailureLimit } from './failure-limit';

export interface AdminGuardOptions {
  /**
   * Failed attempts per client address (CONTRACT §9, as on the token endpoints): a wrong token
   * from an address over its limit gets 429 instead of 401; the right token is always served.
   */
  failures?: FailureLimit;
}

/** The client address as the kernel's `trust proxy` setting (TRUST_PROXY) derives it. */
function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** 429 when this failure took the address over its limit, else the 401; a limit store that fails leaves the 401. */
async function refusal(req: Request, res: Response, failures: FailureLimit | undefined): Promise<AppError> {
  if (failures === undefined) return new AppError('unauthenticated');
  try {
    const blockedFor = await failures.recordFailure(clientAddress(req));
    if (blockedFor !== undefined) return new AppError('rate_limited', { retryAfterSeconds: Math.max(1, Math.ceil(blockedFor / 1000)) });
  } catch (error) {
    locals(res).log.warn('admin failure limit unavailable', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return new AppError('unauthenticated');
}

/**
 * Guards an admin API (CONTRACT §7): `Authorization: Bearer <ADMIN_TOKEN>` before anything else;
 * it enters the admin routes' edge (`adminEdge`: JSON only, no WWW-Authenticate). SHA-256 digests are compared in constant time, so neither the
 * token nor its length leaks through timing. An undefined token refuses every call.
 */
export function requireAdminToken(adminToken: string | undefined, options: AdminGuardOptions = {}): RequestHandler {
  const expected = adminToken === undefined ? undefined : secretDigest(adminToken);
  return (req, res, next) => {
    enterRoute(res, adminEdge);
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (expected !== undefined && presented !== undefined && secretsEqual(presented, expected)) {
      next();
      return;
    }
    void refusal(req, res, options.failures).then(next);
  };
}
