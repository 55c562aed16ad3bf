import type { IncomingHttpHeaders } from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { HttpError } from "./http-error.js";

/**
 * A module's authentication when an API key is configured: `X-Api-Key` must equal it. `reject` builds
 * the service's own error (401 on the control plane and tracing API, 403 on the agent server).
 */
export function apiKeyCheck(key: string | undefined, reject: (missing: boolean) => HttpError): ((headers: IncomingHttpHeaders) => HttpError | undefined) | undefined {
  if (!key) return undefined;
  return (headers) => {
    const sent = headers["x-api-key"];
    if (typeof sent !== "string" || sent === "") return reject(true);
    return sameSecret(sent, key) ? undefined : reject(false);
  };
}

/** Compares a sent credential with the configured one in constant time. */
export function sameSecret(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

