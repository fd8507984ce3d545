/**
 * The HTTP server of a kernel app. Every request express dispatches goes through
 * `Object.setPrototypeOf(req, app.request)` and the same for `res`. Changing an object's prototype
 * after construction makes V8 give it a new map, so every access to a request or a response,
 * in node's HTTP code, in express and in ours, runs on a map it has not seen. This server builds
 * each request and response with the app's prototypes from the start. Express's
 * `setPrototypeOf` then finds the prototype already in place and changes nothing.
 *
 * Measured on a 2-core machine (autocannon, 50 connections, a 42 KB body, CPU of the server
 * process per request, two rounds each): a bare express app 190–284 µs with `app.listen`, 93–102 µs
 * on such a server (a raw node handler: 64–68 µs); a kernel app (`createHttpApp`, one `handler`
 * route) 263–324 µs against 118–145 µs. Express, its router and every handler stay as they are.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * An HTTP server for `app` whose requests and responses are made with the app's prototypes.
 * node's `IncomingMessage` and `ServerResponse` are plain constructor functions (node 20–24), so
 * a constructor that calls one on an object made from the app's prototype builds the same
 * object node would. (`Reflect.construct` with such a new.target measured slower than
 * `app.listen` itself: 250–437 µs per request.)
 */
export function createAppServer(app: Express): Server {
  // A node whose constructors became classes (they cannot be called) gets express's own server.
  if ([http.IncomingMessage, http.ServerResponse].some((made) => /^class\b/.test(Function.prototype.toString.call(made)))) {
    return http.createServer(app);
  }
  const incoming = http.IncomingMessage as unknown as (this: object, socket: Socket) => void;
  const outgoing = http.ServerResponse as unknown as (this: object, req: IncomingMessage, options?: object) => void;
  function AppRequest(this: object, socket: Socket): void {
    incoming.call(this, socket);
  }
  function AppResponse(this: object, req: IncomingMessage, options?: object): void {
    outgoing.call(this, req, options);
  }
  AppRequest.prototype = app.request;
  AppResponse.prototype = app.response;
  return http.createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    app,
  );
}
