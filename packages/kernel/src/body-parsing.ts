import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import typeis from 'type-is';

export const BODY_LIMIT = '16kb';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPES = ['application/x-www-form-urlencoded'];

/** The type given to a body whose Content-Encoding does not decode (the kernel answers 400, CONTRACT §2). */
export const DECODE_FAILED = 'entity.decode.failed';

/**
 * body-parser passes a zlib error (corrupt gzip, deflate or br) on with status 400 but no
 * `type`, which would read as a fault of the server. On a request with a Content-Encoding, such
 * an error is the client's body that does not decode, and gets a type of its own.
 */
function typedDecodeFailure(req: Request, next: NextFunction): NextFunction {
  const encoding = req.headers['content-encoding'];
  if (encoding === undefined || encoding.toLowerCase() === 'identity') return next;
  return (error?: unknown) => {
    if (typeof error === 'object' && error !== null) {
      const { type, status } = error as { type?: unknown; status?: unknown };
      if (type === undefined && status === 400) Object.assign(error, { type: DECODE_FAILED });
    }
    next(error);
  };
}

/**
 * The kernel's body parsing (CONTRACT §2): a JSON or a form body, at most 16 KiB. The media type
 * is read once and only the parser it selects runs (each parser would otherwise check the type,
 * the request's state and its body again, for nothing on most requests); a body of another type
 * is left unread, as both parsers would leave it. `largeJson`: paths whose JSON bodies may be
 * larger (path → limit, `'1mb'`), as a route of the contract allows (CONTRACT §7.1, the usage
 * batch); every other body of such a path keeps the common limit.
 */
export function createBodyParsing(
  largeJson: Readonly<Record<string, string>> = {},
): (req: Request, res: Response, next: NextFunction) => void {
  const jsonBody: RequestHandler = express.json({ limit: BODY_LIMIT, type: JSON_TYPES });
  const formBody: RequestHandler = express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 });
  const largeJsonBodies = new Map(Object.entries(largeJson).map(([path, limit]) => [path, express.json({ limit, type: JSON_TYPES })]));
  return (req, res, next) => {
    // What both parsers check first (type-is's hasBody) without running either: most requests
    // (GET) have no body.
    if (!typeis.hasBody(req)) {
      if (!Reflect.has(req, 'body')) req.body = undefined;
      next();
      return;
    }
    const contentType = req.headers['content-type'];
    const form = contentType !== undefined && typeis.is(contentType, FORM_TYPES) !== false;
    // Looked up only when some path has a limit of its own: the common case pays nothing.
    const parser = form ? formBody : ((largeJsonBodies.size > 0 ? largeJsonBodies.get(req.path) : undefined) ?? jsonBody);
    void parser(req, res, typedDecodeFailure(req, next));
  };
}
