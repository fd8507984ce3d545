import { subscribe } from 'node:diagnostics_channel';
import type { Response } from 'express';
import { RequestState } from './request-state';

let watching = false;

/**
 * Hands every finished response of a kernel app to its request's state (metrics, request line).
 * Node's HTTP server reports each response it finishes on the `http.server.response.finish`
 * channel, for every server of the process; a response whose `res.locals` is not a kernel
 * state (another express app, a plain node server) is left alone.
 *
 * Why not `res.on('finish')`: node's server adds its own 'finish' listener first, so a second
 * listener turns the response's listeners into a two-element array. Under the usage API's load
 * V8 came to allocate that array straight into the old generation (allocation-site
 * pretenuring), and from there it held the response, the request and all they reference
 * through every young-generation collection until the next full one. Usage requests answered
 * by the kernel's own step right after it added the listener: 4.3 MB promoted per scavenge and
 * 23 % of the thread in the collector; answered right before: 0.2 MB and 3 %
 * (docs/benchmarks.md, "Responses held through the young generation").
 */
export function watchFinishedResponses(): void {
  if (watching) return;
  watching = true;
  subscribe('http.server.response.finish', (message) => {
    const { response } = message as { response: Response };
    const state: unknown = response.locals;
    if (state instanceof RequestState) state.finished(response);
  });
}
