import type { RequestHandler } from "express";
import express from "express";
import { DEFAULT_BODY_LIMIT } from "./json-parser.js";
import { NOT_JSON, keepRawBody } from "./json-body.js";

/** What FastAPI reads as JSON: main type `application`, subtype `json` or `*+json`, any parameters. */
const JSON_TYPE = /^\s*application\/([!#$%&'*.^_`|~0-9a-z-]*\+)?json\s*(;|$)/i;

/** Whether a Content-Type means JSON to the services; none (or an empty one) does, as in FastAPI. */
function isJsonContentType(type: string | undefined): boolean {
  // What the SDKs send, checked first: this runs on every request with a body.
  return type === undefined || type === "application/json" || type.trim() === "" || JSON_TYPE.test(type);
}

/**
 * Service routes read a body as JSON only when it is sent as JSON, as FastAPI does (DESIGN §11): a
 * `text/plain` or form body is what another web page can send without a preflight. Such a body is
 * read as UTF-8 text (within the same limit) and handed on as a `not_json` body problem, which each
 * service answers in its own shape; an empty one is no body at all. JSON goes to `parse`.
 */
export function jsonContentOnly(parse: RequestHandler, limit: string = DEFAULT_BODY_LIMIT): RequestHandler {
  // Bytes, decoded as UTF-8 whatever the charset says: FastAPI quotes the bytes it was given.
  const raw = express.raw({ type: () => true, limit, verify: keepRawBody });
  return (req, res, next) => {
    const type = req.headers["content-type"];
    if (isJsonContentType(type)) return parse(req, res, next);
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const body = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
      if (body === "") {
        req.body = undefined;
        return next();
      }
      next(Object.assign(new Error(`Content-Type ${JSON.stringify(type)} is not JSON; send the body as application/json`), { type: NOT_JSON, body, status: 422 }));
    });
  };
}
