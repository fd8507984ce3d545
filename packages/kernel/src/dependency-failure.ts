import { types } from 'node:util';
import { AppError, unavailable } from '@platform/wire';

// The routes' HTTP vocabulary: @platform/wire defines it, stores and credential checks take it from there.
export { unavailable };

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// SQLSTATE classes: 08 connection exception (pgbouncer's query_wait_timeout too), 53
// insufficient resources, 57P operator intervention (server shutting down), 57014 a statement
// cancelled (statement_timeout: the request's budget spent); 40001/40P01 are worth a retry too.
// 25006 (a write in a read-only transaction): no service opens one, so it is a node that is not
// (yet) the primary: Patroni starts a primary it restarts read-only and promotes it a moment
// later, while it already holds the leader key and HAProxy routes to it; a failover's old node.
const SQLSTATE = /^(08|53|57P)|^57014$|^40001$|^40P01$|^25006$/;
const MESSAGES = [
  // pg
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout$/,
  /Client has encountered a connection error/,
  /Client was closed and is not queryable/,
  // ioredis
  /^Connection is closed/,
  /Stream isn't writeable/,
  /^Command timed out/,
  /^Redis connection is not ready/,
  /max retries per request/i,
  // ioredis' Redis Cluster client, and a cluster in a failover
  /^Cluster isn't ready/,
  /^Failed to refresh slots cache/,
  /^Too many Cluster redirections/,
  /^None of startup nodes is available/,
  /^CLUSTERDOWN/,
  /^MOVED /,
  /^ASK /,
  /^TRYAGAIN/,
  /^LOADING/,
];

/**
 * Whether an error means that Postgres or Redis could not be reached or gave up (answered as
 * 503, retry later) rather than a bug (500).
 */
export function isDependencyFailure(error: unknown, depth = 0): boolean {
  // isNativeError: a socket error made by Node itself is an Error of the main realm, which
  // `instanceof Error` does not recognise inside another one (a vm context, such as a test runner's).
  if (!(error instanceof Error || types.isNativeError(error)) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (
    error.name === 'MaxRetriesPerRequestError' ||
    error.name === 'ClusterAllFailedError' ||
    error.name === 'AccessStoreNotReconciled' ||
    MESSAGES.some((pattern) => pattern.test(error.message))
  )
    return true;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) return inner.some((each) => isDependencyFailure(each, depth + 1));
  return isDependencyFailure(error.cause, depth + 1);
}

/**
 * The one mapping of "dependency down" (CONTRACT: 503 with Retry-After), applied by the kernel's
 * error handler to every error a route lets through: a contract error stays what it is, a
 * Postgres/Redis failure becomes `unavailable`, anything else stays unknown (a 500).
 */
export function asDependencyError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  return isDependencyFailure(error) ? unavailable(error) : undefined;
}
