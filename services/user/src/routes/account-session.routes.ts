import type { Response } from 'express';
import { AppError, rateLimited } from '@platform/wire';
import { declareRoute, mountRoute, publicEdge, respond, routeGroup } from '@platform/kernel';
import {
  presentedCredential,
  type AccessStore,
  type CredentialVerifier,
  type ExplainKeyRefusal,
  type FailureLimit,
  type PageSessionKeys,
  type PresentedCredential,
} from '@platform/credentials';
import { z } from 'zod';
import { openPageSession } from '../domain/page-session';
import type { UserQueries } from '../domain/user-store';

const PATH = '/account/session';
const SignedInAccount = z.object({ id: z.number().int(), email: z.string() }).openapi('SignedInAccount');
const sessionSecurity = [{ credential: [] }];

/** Answers that carry a credential are never stored (CONTRACT §2); routes that answer account data declare `accountData` instead. */
export function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** `POST /account/session`: the account page signs in with the API key, whatever the balance (CONTRACT §4.7). */
export const openSessionRoute = declareRoute({
  methods: ['post'],
  paths: [PATH],
  edge: publicEdge,
  summary: 'Sign the account page in',
  description:
    'The API key buys a page session (`ps_…`, one hour), also when every pool is at 0. The session is good for the ' +
    "account's own data (balance, usage history, notification settings, webhook deliveries) only: the token endpoint " +
    'and every product refuse it, and a key rotation revokes it.',
  params: { apiKey: z.string().optional().openapi({ description: 'The API key.' }) },
  responses: {
    200: {
      description: 'Page session (Cache-Control: no-store)',
      body: z.object({ session: z.string(), expiresIn: z.number().int(), account: SignedInAccount }),
    },
    401: 'Missing or bad key',
    429: 'Too many sign-ins for this key, or too many failed ones from this address',
  },
});

/** `GET /account/session`: who the page is signed in as. */
export const readSessionRoute = declareRoute({
  methods: ['get'],
  paths: [PATH],
  edge: publicEdge,
  summary: 'The signed-in account',
  security: sessionSecurity,
  responses: {
    200: { description: 'The account (Cache-Control: no-store)', body: z.object({ account: SignedInAccount }) },
    401: 'Missing or bad credential',
  },
});

/** `POST /account/session/revoke`: signs the page out (the session stops working at once). */
export const revokeSessionRoute = declareRoute({
  methods: ['post'],
  paths: [`${PATH}/revoke`],
  edge: publicEdge,
  summary: 'Sign the account page out',
  security: sessionSecurity,
  responses: {
    200: { description: 'Revoked', body: z.object({ revoked: z.boolean() }) },
    401: 'Missing or bad credential',
  },
});

export interface AccountSessionRouteUses {
  accountCredentials: CredentialVerifier;
  store: Pick<UserQueries, 'findAccount'>;
  /** Where page sessions are issued and revoked. */
  accessStore: Pick<AccessStore, 'issue' | 'revokeToken'>;
  explainKey: ExplainKeyRefusal;
  /** Failed sign-ins per client address (AUTH_FAILURES_PER_IP). */
  pageSignInFailures: FailureLimit;
  /** Which key bought each page session, so that a disabled account's session says so. */
  pageSessionKeys: Pick<PageSessionKeys, 'remember'>;
}

/** The account page's session API; the account page's group mounts it before its page headers (accountPageRoutes). */
export const accountSessionRoutes = routeGroup<AccountSessionRouteUses>({
  routes: [openSessionRoute, readSessionRoute, revokeSessionRoute],
  mount(router, { accountCredentials, store: queries, accessStore, explainKey, pageSignInFailures, pageSessionKeys }) {
    // A wrong key counts against the client address: over AUTH_FAILURES_PER_IP a minute, 429 (the
    // page cannot be used to try keys faster than the token endpoint allows).
    // The refusal itself when the address is within its limit: it keeps its reason.
    const countedFailure = async (address: string, refusal: AppError): Promise<AppError> => {
      const blockedFor = await pageSignInFailures.recordFailure(address);
      return blockedFor === undefined ? refusal : rateLimited(blockedFor);
    };
    const signedIn = async (credential: PresentedCredential) => {
      const principal = await accountCredentials.require(credential);
      const account = await queries.findAccount(principal.accountId);
      if (!account) throw new AppError('unauthenticated');
      return { principal, account: { id: account.id, email: account.email } };
    };
    mountRoute(router, openSessionRoute, async (req, res, request) => {
      noStore(res);
      const session = await openPageSession(
        {
          issue: (issue) => accessStore.issue(issue),
          findAccount: (id) => queries.findAccount(id),
          explainKey,
          rememberKey: (session, key, ttl) => pageSessionKeys.remember(session, key, ttl),
        },
        presentedCredential(req, request.params),
      ).catch(async (error: unknown) => {
        throw error instanceof AppError && error.code === 'unauthenticated' ? await countedFailure(req.ip ?? 'unknown', error) : error;
      });
      request.input();
      respond(res, 200, session);
    });
    mountRoute(router, readSessionRoute, async (req, res, request) => {
      noStore(res);
      const { account } = await signedIn(presentedCredential(req, request.params));
      respond(res, 200, { account });
    });
    mountRoute(router, revokeSessionRoute, async (req, res, request) => {
      const presented = presentedCredential(req, request.params);
      const { secret } = presented;
      const { principal } = await signedIn(presented);
      // Only a page session is ended here; a key or an API token is revoked where it was made.
      if (principal.kind === 'pageSession' && secret !== undefined) await accessStore.revokeToken(secret);
      respond(res, 200, { revoked: principal.kind === 'pageSession' });
    });
  },
});
