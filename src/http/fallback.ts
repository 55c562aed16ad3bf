import type { ErrorRequestHandler, RequestHandler } from "express";
import { HttpError, detailError } from "./http-error.js";
import type { RouteTable } from "./route-table.js";

/**
 * The end of the pipeline, as FastAPI/Starlette answer it: an unknown path is 404
 * `{"detail":"Not Found"}`, a known path with another method is 405 `{"detail":"Method Not Allowed"}`
 * with an Allow header.
 */
export function notFound(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const allowed = routes.allowedMethods(req.path);
    if (allowed.length) next(detailError(405, "Method Not Allowed", { Allow: allowed.join(", ") }));
    else next(detailError(404, "Not Found"));
  };
}

/**
 * Writes HttpErrors as they are. Anything else is a bug in the mock: it answers 500 with a short,
 * fixed body (never a stack trace) and reports the error on stderr without blocking the request.
 */
export function errorHandler(): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpError) {
      res.status(err.status).set(err.headers).json(err.body);
      return;
    }
    const status = (err as { status?: number }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      res.status(status).json({ detail: (err as Error).message || "Bad Request" });
      return;
    }
    process.stderr.write(`agent-platform-mock: internal error on ${req.method} ${req.originalUrl}: ${(err as Error)?.stack ?? String(err)}\n`);
    res.status(500).json({ detail: "Internal Server Error" });
  };
}
