/** How a route enters its declared edge, and what it reads of the kernel's decisions. */
import type { Request, RequestHandler, Response } from 'express';
import { invalidMessage, type FieldMessages, type Params } from '@platform/wire';
import { kernelStateOf } from './request-state';
import type { RouteEdge } from './route-edge';

/** A route's work: the request, the response, and the request's parameters (read once, shared with the kernel). */
export type RouteFn = (req: Request, res: Response, params: Params) => Promise<void> | void;

/**
 * A route of the kernel, declared with its edge: the envelope its errors use, the formats it
 * answers in and its 401 challenge. Entering the route is the only write of the edge; the kernel
 * decides the output format from it when the route or the error handler first needs it.
 */
export function handler(edge: RouteEdge, fn: RouteFn): RequestHandler {
  return async (req, res, next) => {
    const state = kernelStateOf(res);
    state.enter(edge);
    try {
      await fn(req, res, state.params);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * For a guard mounted before its routes (`app.use(path, guard)`): enters the edge the guarded
 * routes declare, so that the guard's own refusals answer like them. Returns the request's parameters.
 */
export function enterRoute(res: Response, edge: RouteEdge): Params {
  const state = kernelStateOf(res);
  state.enter(edge);
  return state.params;
}

/** Whether the kernel refused the request's `outputFormat` (the route answers 422 in JSON, CONTRACT §2). */
export function outputFormatRefused(res: Response): boolean {
  return kernelStateOf(res).formatDecision === 'refused';
}

/**
 * Adds the contract's `outputFormat` message to a route's field errors when the kernel refused
 * the value, so that it is reported together with the route's other fields (CONTRACT §2).
 */
export function checkOutputFormat(res: Response, errors: FieldMessages): void {
  if (outputFormatRefused(res)) errors.outputFormat = [invalidMessage('outputFormat')];
}
