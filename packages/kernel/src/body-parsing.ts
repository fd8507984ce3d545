import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import typeis from 'type-is';

export const BODY_LIMIT = '16kb';

const JSON_TYPES = ['application/json', 'application/*+json'];
const FORM_TYPES = ['application/x-www-form-urlencoded'];

/**
 * The kernel's body parsing (CONTRACT §2): a JSON or a form body, at most 16 KiB. The media type
 * is read once and only the parser it selects runs (each parser would otherwise check the type,
 * the request's state and its body again, for nothing on most requests); a body of another type
 * is left unread, as both parsers would leave it.
 */
export function createBodyParsing(): (req: Request, res: Response, next: NextFunction) => void {
  const jsonBody: RequestHandler = express.json({ limit: BODY_LIMIT, type: JSON_TYPES });
  const formBody: RequestHandler = express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 });
  return (req, res, next) => {
    // What both parsers check first (type-is's hasBody) without running either: most requests
    // (GET) have no body.
    if (!typeis.hasBody(req)) {
      if (!Reflect.has(req, 'body')) req.body = undefined;
      next();
      return;
    }
    const contentType = req.headers['content-type'];
    const parser = contentType !== undefined && typeis.is(contentType, FORM_TYPES) !== false ? formBody : jsonBody;
    void parser(req, res, next);
  };
}
