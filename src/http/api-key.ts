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
    next(sameSecret(sent, key) ? undefined : reject(false));
  };
}

/** Compares a sent credential with the configured one in constant time. */
export function sameSecret(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
