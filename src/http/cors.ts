import type { RequestHandler } from "express";

const EXPOSED = "Content-Location, Location, X-Pagination-Next, X-Pagination-Total";

/** Which browser origins may call a group of routes cross-origin. */
export interface CorsPolicy {
  /**
   * Undefined: any origin, answered with `*` and no credentials (a page cannot borrow the user's
   * cookies or auth). A list: exactly those origins, echoed with credentials; `"*"` in it allows any.
   */
  origins?: readonly string[];
}

/** Whether an origin may call routes under this policy. */
export function originAllowed(policy: CorsPolicy, origin: string): boolean {
  return !policy.origins || policy.origins.includes("*") || policy.origins.includes(origin.replace(/\/+$/, ""));
}

/**
 * CORS for the routes a browser front end calls directly (agent server, feedback token URLs): by
 * default any origin gets `Access-Control-Allow-Origin: *` without credentials (DESIGN §11), the
 * requested method and headers, and the headers the SDKs read exposed. With configured origins only
 * those are answered, by name and with credentials; any other origin gets no CORS headers, so the
 * browser keeps the response from the page.
 */
export function cors(policy: CorsPolicy = {}): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || !originAllowed(policy, origin)) return next();
    if (policy.origins) {
      res.setHeader("Access-Control-Allow-Origin", origin);
      res.setHeader("Vary", "Origin");
      res.setHeader("Access-Control-Allow-Credentials", "true");
    } else {
      res.setHeader("Access-Control-Allow-Origin", "*");
    }
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
