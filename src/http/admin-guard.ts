import type { RequestHandler } from "express";
import type { HttpError } from "./http-error.js";
import { cors, originAllowed } from "./cors.js";

/** Content types a state-changing admin request may carry (no HTML form can send these without a preflight). */
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;
/** `POST /_mock/scenarios` and `POST /_mock/overrides` also take a scenario file's YAML. */
const YAML_TYPE = /^(application|text)\/(x-)?yaml\s*(;|$)/i;
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** The admin API's paths (matched as express matched its mount path: case-insensitively). */
const ADMIN_PATH = /^\/_mock(\/|$)/i;
const SCENARIOS_PATH = /^\/_mock\/(scenarios|overrides)\/?$/i;

export interface AdminGuardOptions {
  /** MockOptions.corsOrigins: the only other origins the admin API answers. */
  origins?: readonly string[];
  /** The mock's public origin (pages it serves itself are same-origin). */
  publicUrl?: string;
  errors: {
    forbiddenOrigin: (origin: string) => HttpError;
    unsupportedType: (contentType: string, accepted: string) => HttpError;
  };
}

/**
 * The admin API (`/_mock`) can reset the mock, load scenarios and move the clock, so no other web page
 * may drive it (DESIGN §11):
 * - a request carrying an `Origin` other than the mock's own is refused with 403 — browsers send it
 *   on every cross-origin request that could change state — unless the origin is in `corsOrigins`,
 *   which also gets CORS headers (by name, with credentials);
 * - a state-changing request with a body must say it is JSON (YAML for scenario uploads), so a plain
 *   form or a `text/plain` fetch — the requests a page can send without a preflight — is a 415.
 * Requests without an `Origin` (curl, SDKs, tests) pass the first check; the second still applies.
 * Other paths pass through untouched.
 */
export function adminGuard(options: AdminGuardOptions): RequestHandler {
  const allowedCors = options.origins ? cors({ origins: options.origins }) : undefined;
  return (req, res, next) => {
    if (!ADMIN_PATH.test(req.path)) return next();
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host, options.publicUrl)) {
      if (!options.origins || !originAllowed({ origins: options.origins }, origin)) return next(options.errors.forbiddenOrigin(origin));
      return (allowedCors as RequestHandler)(req, res, () => checkType());
    }
    checkType();

    function checkType(): void {
      if (!STATE_CHANGING.has(req.method) || !hasBody(req.headers)) return next();
      const type = String(req.headers["content-type"] ?? "");
      const scenarios = req.method === "POST" && SCENARIOS_PATH.test(req.path);
      if (JSON_TYPE.test(type) || (scenarios && YAML_TYPE.test(type))) return next();
      next(options.errors.unsupportedType(type, scenarios ? "application/json or application/yaml" : "application/json"));
    }
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}

function sameOrigin(origin: string, host: string | undefined, publicUrl: string | undefined): boolean {
  if (!URL.canParse(origin)) return false;
  const { host: originHost, origin: normalised } = new URL(origin);
  if (host !== undefined && originHost === host.toLowerCase()) return true;
  return publicUrl !== undefined && URL.canParse(publicUrl) && new URL(publicUrl).origin === normalised;
}
