/** The kernel's per-request state (`res.locals`) and the route watch that labels metrics and request lines. */
import type { Request, Response } from 'express';
import type { Logger } from '@platform/runtime';
import { type OutputFormat, Params } from '@platform/wire';
import { decideFormat, type FormatDecision, type RouteEdge } from './route-edge';

/** Per-request state kept on `res.locals`. */
export interface RequestLocals {
  requestId: string;
  log: Logger;
  /** The declared edge of the route the request entered; the app's default before it enters one. */
  readonly edge: RouteEdge;
  /** The format the kernel decided, once, from the edge and the request (JSON when it refused the request's value). */
  readonly outputFormat: OutputFormat;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}

/** The kernel's state of a request that an app made by `createHttpApp` serves. */
export function kernelStateOf(res: Response): RequestState {
  const state: unknown = res.locals;
  if (state instanceof RequestState) return state;
  throw new Error('this route must be mounted in an app made by createHttpApp');
}

/** The format the kernel decided for the request (JSON outside the kernel). */
export function formatOf(res: Response): OutputFormat {
  const state: unknown = res.locals;
  return state instanceof RequestState ? state.outputFormat : 'JSON';
}

/** The template of a route (`/user-service/account-balance`, `/accounts/:id`) as mounted. */
function routeTemplate(req: Request, route: unknown): string | undefined {
  const path = (route as { path?: unknown } | null | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  if (Array.isArray(path)) {
    // app.get(['/user-service/x', '/service/x']): the literal alternative that matched, else the first.
    const templates = path.filter((candidate): candidate is string => typeof candidate === 'string');
    const chosen = templates.find((candidate) => candidate === req.path) ?? templates[0];
    return chosen === undefined ? undefined : `${req.baseUrl}${chosen}`;
  }
  return undefined;
}

// Where `req.route` is kept for a request the kernel does not serve (another express app).
const ROUTE = Symbol('route');

interface WatchedRequest extends Request {
  [ROUTE]?: unknown;
}

/** The kernel's state of the request, found through `req.res.locals` (no property added to the request). */
function kernelState(req: Request): RequestState | undefined {
  const state: unknown = req.res?.locals;
  return state instanceof RequestState ? state : undefined;
}

/**
 * Records, on the request's kernel state, the template of every route the router dispatches the
 * request to. The router assigns `req.route` while `req.baseUrl` still holds the mount path; by
 * the time the response finishes (an error that left a mounted router, say) baseUrl has been
 * reset. One accessor on the app's request prototype does it for every request, instead of a
 * property defined on each request.
 *
 * Why this patch of express's request prototype stays: it is the one place that gives every
 * route, the kernel's, the services' and a product app's, its template label for the metrics
 * and the request line, whatever envelope or wrapper the route uses, with nothing for a route to
 * remember. Its cost was measured (issue "hot paths"): 30–70 ns per assignment against 7–40 ns
 * for a plain property, one assignment per request, under 0.1 µs of a request that costs
 * several hundred; the alternative, every handler recording its own template, costs the same.
 */
export function watchRoutes(prototype: object): void {
  if (Object.hasOwn(prototype, ROUTE)) return;
  Object.defineProperty(prototype, ROUTE, { value: undefined, writable: true });
  Object.defineProperty(prototype, 'route', {
    configurable: true,
    enumerable: true,
    get(this: WatchedRequest): unknown {
      const state = kernelState(this);
      return state ? state.routeObject : this[ROUTE];
    },
    set(this: WatchedRequest, value: unknown) {
      const state = kernelState(this);
      if (!state) {
        this[ROUTE] = value;
        return;
      }
      state.routeObject = value;
      const template = routeTemplate(this, value);
      if (template !== undefined) state.route = template;
    },
  });
}

const levels = new WeakMap<Logger, Map<string, boolean>>();

/** Whether `logger` writes `level`, remembered per logger (the services never change a level at run time). */
export function levelOf(logger: Logger, level: string): boolean {
  let known = levels.get(logger);
  if (known === undefined) {
    known = new Map();
    levels.set(logger, known);
  }
  let enabled = known.get(level);
  if (enabled === undefined) {
    enabled = logger.isLevelEnabled(level);
    known.set(level, enabled);
  }
  return enabled;
}

/**
 * `res.locals` of a request: the contract's RequestLocals, with the child logger made only when
 * something logs (most requests log only their request line, which needs no child).
 */
export class RequestState implements RequestLocals {
  /** Route template for metrics and the request line; `unmatched` until the router finds one. */
  route = 'unmatched';
  /** What the router assigned to `req.route`. */
  routeObject: unknown = undefined;
  private child: Logger | undefined;
  private madeParams: Params | undefined;
  private decision: FormatDecision | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly req: Request,
    public requestId: string,
    private currentEdge: RouteEdge,
    /** performance.now() when the kernel saw the request. */
    readonly started: number,
    /** The app's work once the response has finished (its metrics and request line). */
    private readonly onFinish: (res: Response, state: RequestState) => void,
  ) {}

  /** Node's HTTP server finished the response (finished-responses.ts). */
  finished(res: Response): void {
    this.onFinish(res, this);
  }

  get edge(): RouteEdge {
    return this.currentEdge;
  }

  /**
   * Enters a route's declared edge (the kernel's `handler`, or a guard mounted before the route).
   * The format is a function of the edge and the request: a decision made under another edge is
   * dropped, and made again from this one when it is next needed.
   */
  enter(edge: RouteEdge): void {
    if (edge === this.currentEdge) return;
    this.currentEdge = edge;
    this.decision = undefined;
  }

  /** The request's parameters, read once for the kernel and the route. */
  get params(): Params {
    return (this.madeParams ??= Params.from(this.req));
  }

  /** The kernel's decision on the format (`decideFormat`), made at the first need and kept. */
  get formatDecision(): FormatDecision {
    return (this.decision ??= decideFormat(this.currentEdge, this.params));
  }

  get outputFormat(): OutputFormat {
    const decision = this.formatDecision;
    return decision === 'refused' ? 'JSON' : decision;
  }

  get log(): Logger {
    if (this.child === undefined) this.child = this.logger.child({ requestId: this.requestId });
    return this.child;
  }

  set log(logger: Logger) {
    this.child = logger;
  }

  /** The child logger if one was made (a route logged, or replaced it), else undefined. */
  madeLogger(): Logger | undefined {
    return this.child;
  }

  /** Whether the request's logger writes records of `level`, without making the child logger. */
  levelEnabled(level: string): boolean {
    // A child logger writes at its parent's level; winston's check allocates, so it is asked once per level.
    return this.child === undefined ? levelOf(this.logger, level) : this.child.isLevelEnabled(level);
  }
}

/**
 * Whether a record of `level` on the request's logger would be written. Check it before building
 * an expensive record: asking `locals(res).log` makes the request's child logger.
 */
export function logLevelEnabled(res: Response, level: string): boolean {
  const state: unknown = res.locals;
  return state instanceof RequestState ? state.levelEnabled(level) : locals(res).log.isLevelEnabled(level);
}
