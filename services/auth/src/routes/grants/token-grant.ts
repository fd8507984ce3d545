import type { Request, Response } from 'express';
import type { Params } from '@platform/wire';
import type { RouteEdge } from '@platform/kernel';
import type { AccountCredential } from '../../domain/account-auth';
import type { IssuedToken } from '../../domain/issue-token';
import type { Authorization } from '../authorization';

/**
 * One grant of the token endpoint (`POST /oauth/token`): how its client authenticates, which
 * parameters it takes and how it answers. The endpoint runs the same steps, in the contract's
 * order, for every grant (`token.routes.ts`); a grant fills them in.
 */
export interface TokenGrant {
  /** The grant's name in the logs (`flow`). */
  readonly name: string;
  /** Envelope, formats and challenge of its answers, errors included. */
  readonly edge: RouteEdge;
  /** The presented credential; undefined when the request carries none of this grant's kind (401). */
  credential(req: Request, authorization: Authorization): AccountCredential | undefined;
  /** The lifetime to grant, from the request's parameters; throws the grant's parameter error. */
  lifetime(params: Params, res: Response): number;
  /** The 200 answer. */
  answer(res: Response, issued: IssuedToken): void;
}
