import express, { type RequestHandler } from "express";
import { perProcess } from "../../core/memo.js";
import { bodyProblem } from "../json-body.js";
import { DEFAULT_BODY_LIMIT, jsonBody } from "../json-parser.js";
import type { RouteSpec } from "../route.js";
import type { ServiceModule } from "../service-module.js";
import type { Stage } from "../exchange.js";

type BodyKind = NonNullable<RouteSpec["bodyKind"]>;

/**
 * Reads the body the way the route's declaration asks (body-parser): JSON by default, JSON or a form
 * (OAuth endpoints), text or bytes. A body that cannot be read (malformed, too large, too deep) is
 * answered with the route's or module's `bodyError`.
 */
export function readBody(kind: BodyKind, limit: string | undefined, bodyError: ServiceModule["bodyError"]): Stage {
  const parser = parsersFor(limit)[kind];
  return (x) =>
    new Promise<void>((resolve, reject) => {
      parser(x.req, x.res, (err?: unknown) => {
        if (!err) return resolve();
        const problem = bodyProblem(err);
        reject(problem ? bodyError(problem) : err);
      });
    });
}

/** The parsers by body limit, shared by every module and mock of the process: they keep nothing between requests. */
const parsersFor = perProcess((given: string | undefined): Record<BodyKind, RequestHandler> => {
  const limit = given ?? DEFAULT_BODY_LIMIT;
  const json = jsonBody(limit);
  const form = express.urlencoded({ extended: false, limit });
  return {
    json,
    // OAuth endpoints take forms (RFC 6749) and JSON (RFC 7591 registration).
    "json-or-form": (req, res, next) => (/^application\/x-www-form-urlencoded/i.test(req.headers["content-type"] ?? "") ? form(req, res, next) : json(req, res, next)),
    text: express.text({ type: () => true, limit }),
    raw: express.raw({ type: () => true, limit }),
  };
});
