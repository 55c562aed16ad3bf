import type { IncomingMessage } from "node:http";
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
 * browser keeps the response from the page. Returns the headers for this request (none for a request
 * without an allowed Origin) and whether it is a preflight, which those headers answer.
 */
export function corsHeaders(policy: CorsPolicy, req: IncomingMessage): { headers: Record<string, string>; preflight: boolean } | undefined {
  const origin = req.headers.origin;
  if (!origin || !originAllowed(policy, origin)) return undefined;
  const headers: Record<string, string> = policy.origins
    ? { "Access-Control-Allow-Origin": origin, Vary: "Origin", "Access-Control-Allow-Credentials": "true" }
    : { "Access-Control-Allow-Origin": "*" };
  headers["Access-Control-Expose-Headers"] = EXPOSED;
  const preflight = req.method === "OPTIONS" && Boolean(req.headers["access-control-request-method"]);
  if (preflight) {
    headers["Access-Control-Allow-Methods"] = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
    headers["Access-Control-Allow-Headers"] = String(req.headers["access-control-request-headers"] ?? "*");
    headers["Access-Control-Max-Age"] = "600";
  }
  return { headers, preflight };
}

/** corsHeaders as middleware (the admin guard's, for the origins it lets in): a preflight is answered 200. */
export function cors(policy: CorsPolicy = {}): RequestHandler {
  return (req, res, next) => {
    const found = corsHeaders(policy, req);
    if (!found) return next();
    res.set(found.headers);
    if (found.preflight) return void res.status(200).end();
    next();
  };
}
