import type { RequestHandler } from "express";
import express from "express";
import { DEFAULT_BODY_LIMIT } from "./json-parser.js";
import { NOT_JSON, keepRawBody } from "./json-body.js";

/** What FastAPI reads as JSON: main type `application`, subtype `json` or `*+json`, any parameters. */
const JSON_TYPE = /^\s*application\/([!#$%&'*.^_`|~0-9a-z-]*\+)?json\s*(;|$)/i;

/** Whether a Content-Type means JSON to the services; none (or an empty one) does, as in FastAPI. */
export function isJsonContentType(type: string | undefined): boolean {
  return type === undefined || type.trim() === "" || JSON_TYPE.test(type);
}

/**
 * Service routes read a body as JSON only when it is sent as JSON, as FastAPI does (DESIGN §11): a
 * `text/plain` or form body is what another web page can send without a preflight. Such a body is
 * read as text (within the same limit) and handed on as a `not_json` body problem, which each
 * service answers in its own shape; an empty one is no body at all. JSON goes to `parse`.
 */
export function jsonContentOnly(parse: RequestHandler, limit: string = DEFAULT_BODY_LIMIT): RequestHandler {
  const text = express.text({ type: () => true, limit, verify: keepRawBody });
  return (req, res, next) => {
    const type = req.headers["content-type"];
    if (isJsonContentType(type)) return parse(req, res, next);
    text(req, res, (err?: unknown) => {
      if (err) return next(err);
      const body = typeof req.body === "string" ? req.body : "";
      if (body === "") {
        req.body = undefined;
        return next();
      }
      next(Object.assign(new Error(`Content-Type ${JSON.stringify(type)} is not JSON; send the body as application/json`), { type: NOT_JSON, body, status: 422 }));
    });
  };
}
