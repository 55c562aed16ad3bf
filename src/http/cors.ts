import type { RequestHandler } from "express";

const EXPOSED = "Content-Location, Location, X-Pagination-Next, X-Pagination-Total";

/**
 * CORS for the routes a browser front end calls directly (agent server, feedback token URLs):
 * any origin, the requested method and headers, and the headers the SDKs read exposed.
 */
export function cors(): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin) return next();
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Allow-Credentials", "true");
    res.setHeader("Access-Control-Expose-Headers", EXPOSED);
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", req.headers["access-control-request-headers"] ?? "*");
      res.setHeader("Access-Control-Max-Age", "600");
      res.status(200).end();
      return;
    }
    next();
  };
}
