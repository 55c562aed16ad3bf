import type { RequestHandler } from "express";
import { detailError } from "./http-error.js";
import { hostnameOf } from "./host-check.js";

/** Names that can only be served from this machine (host-check.ts accepts the same in `Host`). */
const LOOPBACK = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost|127(\.\d{1,3}){3}|::1)$/i;
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** The admin API has its own, stricter guard (admin-guard.ts). */
const ADMIN_PATH = /^\/_mock(\/|$)/i;

export interface OriginCheckOptions {
  /** MockOptions.corsOrigins: origins allowed besides loopback ones (`*`: any). */
  origins?: readonly string[];
  /** The mock's own public URLs (publicUrl, tracingUrl): pages they serve are not another site. */
  ownUrls?: readonly (string | undefined)[];
}

/**
 * Cross-site writes (DESIGN §11): browsers send `Origin` with every cross-origin request that can
 * change state, including the "simple" ones a page sends without a preflight. A state-changing
 * request to a service whose `Origin` is neither a loopback origin (a front end on another local
 * port), nor a `corsOrigins` value, nor the mock's own origin is refused with 403 before any route
 * runs, so nothing is stored. Requests without `Origin` (SDKs, curl, tests, server-side code) pass.
 * Reads are left to CORS, which decides what a page may see.
 */
export function originCheck(options: OriginCheckOptions = {}): RequestHandler {
  const listed = new Set((options.origins ?? []).map((o) => o.replace(/\/+$/, "").toLowerCase()));
  const any = listed.has("*");
  const own = new Set(options.ownUrls?.flatMap((u) => (u !== undefined && URL.canParse(u) ? [new URL(u).origin] : [])) ?? []);
  return (req, _res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || any || !STATE_CHANGING.has(req.method) || ADMIN_PATH.test(req.path)) return next();
    if (originAllowed(origin, req.headers.host, listed, own)) return next();
    next(forbiddenOrigin(origin));
  };
}

function originAllowed(origin: string, host: string | undefined, listed: ReadonlySet<string>, own: ReadonlySet<string>): boolean {
  if (listed.has(origin.replace(/\/+$/, "").toLowerCase())) return true;
  // `null` (sandboxed frames, file: pages, some redirects) names no site that could be allowed.
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (LOOPBACK.test(hostnameOf(url.host))) return true;
  if (own.has(url.origin)) return true;
  return host !== undefined && url.host === host.toLowerCase();
}

/** 403 in the `{"detail": …}` shape all three services use, naming the option that allows the origin. */
export function forbiddenOrigin(origin: string) {
  return detailError(403, `Requests from origin ${origin} may not change state here; allow it with --cors-origin ${origin} (the corsOrigins option)`);
}
