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
 *
 * The requests and responses are made by classes that extend node's, not by functions that call
 * node's constructors on an object of their own: V8 makes room inside an object for the properties
 * its constructor and, for a class, its base constructors assign, and a plain function assigns
 * none. The properties then went to a store of their own, and past a dozen added by keyed stores
 * (node's `this[kSymbol] = …`, the router's `req[matchedRoute]`) V8 turned every request and
 * response into a dictionary, slow to read and write (docs/benchmarks.md, "Requests and responses
 * as dictionaries").
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';

interface AppConstructors {
  AppRequest: typeof IncomingMessage;
  AppResponse: typeof ServerResponse;
}

/** Each app's classes: a second server for the same app reuses them (its prototypes stay as they are). */
const constructorsByApp = new WeakMap<Express, AppConstructors>();

/**
 * The app's request and response classes, made once per app: each extends node's, and its
 * prototype sits on top of the app's own (`app.request`, `app.response`, whose methods it
 * inherits) and becomes the app's, so that express finds it on every request.
 */
function appConstructors(app: Express): AppConstructors {
  const found = constructorsByApp.get(app);
  if (found !== undefined) return found;
  class AppRequest extends http.IncomingMessage {}
  class AppResponse extends http.ServerResponse {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Request;
  app.response = AppResponse.prototype as unknown as Response;
  const constructors = { AppRequest, AppResponse: AppResponse as typeof ServerResponse };
  constructorsByApp.set(app, constructors);
  return constructors;
}

/** An HTTP server for `app` whose requests and responses are made with the app's prototypes. */
export function createAppServer(app: Express): Server {
  const { AppRequest, AppResponse } = appConstructors(app);
  return http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}
