import { wellFormed } from "../core/json.js";
import { readAtMost } from "../core/read-at-most.js";
import type { RequestScope } from "../http/route.js";
import { schemas } from "../schemas/registry.js";
import { MAX_DOCUMENT_BYTES } from "./mcp-discovery.js";
import { outboundFetch } from "./mcp-fetch.js";
import { OutboundRefused } from "./outbound-policy.js";

/** A token request is real I/O (when it leaves the process), so it gets a wall-clock limit. */
export const TOKEN_REQUEST_TIMEOUT_MS = 5_000;

/**
 * The most of a token endpoint's answer the exchange reads (a token response is a few hundred bytes):
 * discovery's bound. Reading stops there, so a huge answer costs no memory.
 */
export const MAX_TOKEN_RESPONSE_BYTES = MAX_DOCUMENT_BYTES;

/** The most of a refusal's `error: error_description` a failure quotes: remote text, so kept short. */
export const QUOTED_ERROR_CHARS = 200;

const TOKEN_RESPONSE = "control-plane/mcp-discovery.json#/$defs/TokenResponse";

/** What the exchange needs of a provider (a StoredProvider fits). */
export interface TokenClient {
  token_url: string;
  client_id: string;
  client_secret: string | null;
  token_endpoint_auth_method: string;
}

/** RFC 6749 §5.1, as far as the mock reads it. */
export interface TokenGrant {
  access_token: string;
  refresh_token: string | null;
  /** Seconds, or null when the provider gives no lifetime. */
  expires_in: number | null;
  /** Space-separated scopes the provider granted, or null when it does not say. */
  scope: string | null;
}

export type TokenOutcome = { ok: true; grant: TokenGrant } | { ok: false; why: string };

/** Posts a form to a token endpoint; answers like `fetch`. */
export type TokenEndpointFetch = (url: string, form: Record<string, string>, authorization: string | undefined) => Promise<Response>;

/**
 * The fetch the auth service posts token requests with: as MCP discovery's (mcp-fetch.ts), in-process
 * for the mock's own origin when a network request would not come back here. A provider's token_url is
 * client data: the same host policy as discovery (DESIGN §11). Token endpoints answer, they do not
 * redirect, so a redirect is not followed (it fails the exchange).
 */
export function tokenEndpointFetch(scope: RequestScope, allowOutbound?: readonly string[]): TokenEndpointFetch {
  const send = outboundFetch(scope, allowOutbound, TOKEN_REQUEST_TIMEOUT_MS, false);
  return (url, form, authorization) => send(url, { method: "POST", body: new URLSearchParams(form).toString(), contentType: "application/x-www-form-urlencoded", authorization });
}

/**
 * One token request (authorization_code or refresh_token grant) with the client authentication the
 * provider is configured for: `client_secret_basic` in the Authorization header (RFC 6749 §2.3.1, both
 * parts form-encoded), `client_secret_post` in the form, `none` only the client_id.
 */
export async function requestToken(client: TokenClient, grant: Record<string, string>, fetcher: TokenEndpointFetch): Promise<TokenOutcome> {
  const form: Record<string, string> = { ...grant };
  let authorization: string | undefined;
  if (client.token_endpoint_auth_method === "client_secret_basic" && client.client_secret !== null) {
    // wellFormed: the routes refuse lone surrogates, but a header must never be what throws.
    const encode = (text: string) => encodeURIComponent(wellFormed(text)).replace(/%20/g, "+");
    authorization = `Basic ${Buffer.from(`${encode(client.client_id)}:${encode(client.client_secret)}`).toString("base64")}`;
  } else {
    form.client_id = client.client_id;
    if (client.token_endpoint_auth_method === "client_secret_post" && client.client_secret !== null) form.client_secret = client.client_secret;
  }

  let response: Response;
  let text: string | undefined;
  try {
    response = await fetcher(client.token_url, form, authorization);
    text = await readAtMost(response, MAX_TOKEN_RESPONSE_BYTES);
  } catch (err) {
    if (err instanceof OutboundRefused) return { ok: false, why: err.message };
    const e = err as { name?: string; message?: string; cause?: { code?: string } };
    return { ok: false, why: e?.name === "TimeoutError" ? `no response within ${TOKEN_REQUEST_TIMEOUT_MS / 1000} s` : `the request failed (${e?.cause?.code ?? e?.message ?? String(err)})` };
  }
  if (text === undefined) return { ok: false, why: `HTTP ${response.status}, the response is larger than ${MAX_TOKEN_RESPONSE_BYTES} bytes` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, why: `HTTP ${response.status}, the response is not JSON` };
  }
  if (!response.ok) {
    const error = body as { error?: unknown; error_description?: unknown };
    const detail = typeof error?.error === "string" ? clip(`${error.error}${typeof error.error_description === "string" ? `: ${error.error_description}` : ""}`, QUOTED_ERROR_CHARS) : "no OAuth error";
    return { ok: false, why: `HTTP ${response.status}, ${detail}` };
  }
  if (schemas().check(TOKEN_RESPONSE, body).length) return { ok: false, why: "the response is not an OAuth token response" };
  const token = body as { access_token: string; refresh_token?: string; expires_in?: number; scope?: string };
  return {
    ok: true,
    grant: { access_token: token.access_token, refresh_token: token.refresh_token ?? null, expires_in: token.expires_in ?? null, scope: token.scope ?? null },
  };
}

/** At most `max` characters of `text`, a cut marked with "…" (never halving a surrogate pair). */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
