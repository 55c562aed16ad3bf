import type { RequestHandler } from "express";
import { timingSafeEqual } from "node:crypto";

/**
 * Requires `X-Api-Key` to equal the configured key when one is configured. `reject` builds the
 * service's own error (401 on the control plane and tracing API, 403 on the agent server).
 */
export function requireApiKey(key: string | undefined, reject: (missing: boolean) => Error): RequestHandler {
  return (req, _res, next) => {
    if (!key || req.method === "OPTIONS") return next();
    const sent = req.headers["x-api-key"];
    if (typeof sent !== "string" || sent === "") return next(reject(true));
    const a = Buffer.from(sent);
    const b = Buffer.from(key);
    next(a.length === b.length && timingSafeEqual(a, b) ? undefined : reject(false));
  };
}
