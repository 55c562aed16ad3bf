import type { RequestHandler } from "express";
import express from "express";
import { markRaw, rawBodyOf } from "./json-body.js";

/** Default limit for request bodies; the CLI's --body-limit changes it. */
export const DEFAULT_BODY_LIMIT = "1mb";

/**
 * Parses every request body as JSON whatever its Content-Type (browsers posting feedback often send
 * text/plain to avoid a preflight). An empty body leaves `req.body` undefined. A body nested deeper
 * than MAX_DEPTH is refused before it is parsed (a `too_deep` body problem): nothing downstream —
 * validation, the store, the journal, the response serialiser — has to survive it.
 */
export function jsonBody(limit: string = DEFAULT_BODY_LIMIT): RequestHandler {
  // The parser reads a zero-length body (Content-Length: 0) as {}; FastAPI sees no body at all.
  const parse = express.json({ limit, strict: false, type: () => true, verify: markRaw });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (!err && rawBodyOf(req)?.length === 0) req.body = undefined;
      next(err);
    });
  };
}
