import { isWellFormed } from "../core/json.js";
import { readAtMost } from "../core/read-at-most.js";
import type { HttpError } from "../http/http-error.js";
import { schemas } from "../schemas/registry.js";
import { pointerOf } from "../store/fixtures.js";
import type { ErrorObject } from "ajv";
import { OutboundRefused } from "./outbound-policy.js";
import { controlPlaneErrors } from "./errors.js";

/** A `fetch` for discovery: the global one, or one that answers the mock's own URLs in-process. */
export type DiscoveryFetch = (url: string, init: { method: "GET" | "POST"; body?: string }) => Promise<Response>;

/** Outbound requests are real I/O, so they get a wall-clock limit. */
export const DISCOVERY_TIMEOUT_MS = 5_000;

/** The largest metadata document discovery reads; reading stops there, so a huge answer costs no memory. */
export const MAX_DOCUMENT_BYTES = 1_000_000;

const STEP = {
  resource: "protected resource metadata",
  server: "authorization server metadata",
  registration: "dynamic client registration",
} as const;

const SCHEMA = "control-plane/mcp-discovery.json#/$defs/";

/** What discovery learns: the provider fields that come from the MCP server's authorization server. */
export interface DiscoveredClient {
  auth_url: string;
  token_url: string;
  client_id: string;
  client_secret: string | null;
  uses_pkce: boolean;
  code_challenge_method: string | null;
  token_endpoint_auth_method: string;
}

export interface DiscoveryInput {
  mcpServerUrl: string;
  /** Sent as `client_name` at registration. */
  clientName: string;
  /** The mock's OAuth callback for this provider, sent as the one redirect URI. */
  redirectUri: string;
}

/**
 * The MCP authorization discovery flow (DESIGN §2): protected-resource metadata (RFC 9728), then
 * the first authorization server's metadata (RFC 8414, falling back to OpenID discovery), then
 * dynamic client registration (RFC 7591). A failing step throws the control plane's 400 naming the
 * step and the URL.
 */
export async function discoverMcpClient(input: DiscoveryInput, fetcher: DiscoveryFetch): Promise<DiscoveredClient> {
  const resourceUrl = httpUrl(input.mcpServerUrl, STEP.resource);
  const resource = await getFirst(fetcher, STEP.resource, protectedResourceUrls(resourceUrl), "ProtectedResourceMetadata");
  const issuerText = (resource.doc.authorization_servers as string[])[0] as string;
  const issuer = httpUrl(issuerText, STEP.server);
  const server = await getFirst(fetcher, STEP.server, authorizationServerUrls(issuer), "AuthorizationServerMetadata");
  requireText(STEP.server, server.url, server.doc, ["authorization_endpoint", "token_endpoint"]);

  const methods = stringList(server.doc.code_challenge_methods_supported);
  const challenge = methods.includes("S256") ? "S256" : (methods[0] ?? null);
  const registrationEndpoint = server.doc.registration_endpoint;
  if (typeof registrationEndpoint !== "string") {
    throw controlPlaneErrors.mcpDiscoveryFailed(STEP.registration, server.url, "the authorization server offers no registration_endpoint, so no client can be registered");
  }
  const registrationUrl = httpUrl(registrationEndpoint, STEP.registration).href;
  const requestedAuthMethod = challenge ? "none" : "client_secret_post";
  const scopes = stringList(resource.doc.scopes_supported);
  const registration = {
    client_name: input.clientName,
    redirect_uris: [input.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: requestedAuthMethod,
    ...(scopes.length ? { scope: scopes.join(" ") } : {}),
  };
  const registered = await request(fetcher, STEP.registration, registrationUrl, "ClientRegistrationResponse", { method: "POST", body: JSON.stringify(registration) });
  if (!registered.ok) throw registered.error;
  const client = registered.doc;
  requireText(STEP.registration, registrationUrl, client, ["client_id", "client_secret"]);

  return {
    auth_url: String(server.doc.authorization_endpoint),
    token_url: String(server.doc.token_endpoint),
    client_id: String(client.client_id),
    client_secret: typeof client.client_secret === "string" ? client.client_secret : null,
    uses_pkce: challenge !== null,
    code_challenge_method: challenge,
    token_endpoint_auth_method: typeof client.token_endpoint_auth_method === "string" ? client.token_endpoint_auth_method : requestedAuthMethod,
  };
}

/**
 * RFC 9728 §3.1: the well-known segment goes between the origin and the resource's path and query,
 * which are kept (`https://h/.well-known/oauth-protected-resource/mcp?t=1`); the origin-level document
 * is the fallback.
 */
function protectedResourceUrls(resource: URL): string[] {
  const rest = resource.pathname.replace(/\/+$/, "") + resource.search;
  const atRoot = `${resource.origin}/.well-known/oauth-protected-resource`;
  return rest ? [`${atRoot}${rest}`, atRoot] : [atRoot];
}

/** RFC 8414 first, then OpenID discovery, in the order the MCP authorization spec gives. */
function authorizationServerUrls(issuer: URL): string[] {
  const path = issuer.pathname.replace(/\/+$/, "");
  const oauth = `${issuer.origin}/.well-known/oauth-authorization-server${path}`;
  const openid = `${issuer.origin}/.well-known/openid-configuration${path}`;
  return path ? [oauth, openid, `${issuer.origin}${path}/.well-known/openid-configuration`] : [oauth, openid];
}

/** Tries the candidate URLs in turn while they answer 404 (no such document); any other failure is final. */
async function getFirst(fetcher: DiscoveryFetch, step: string, urls: string[], schema: string): Promise<{ url: string; doc: Record<string, unknown> }> {
  const tried: string[] = [];
  for (const [i, url] of urls.entries()) {
    const outcome = await request(fetcher, step, url, schema, { method: "GET" }, tried);
    if (outcome.ok) return { url, doc: outcome.doc };
    if (outcome.status !== 404 || i === urls.length - 1) throw outcome.error;
    tried.push(`${url}: HTTP ${outcome.status}`);
  }
  throw new Error("no candidate URLs");
}

type Outcome = { ok: true; doc: Record<string, unknown> } | { ok: false; status: number; error: HttpError };

/**
 * One discovery request. An HTTP error status is returned (a 404 may send the caller to another URL); a network
 * failure, a body that is not JSON or a document missing what discovery needs throws the step's 400.
 */
async function request(
  fetcher: DiscoveryFetch,
  step: string,
  url: string,
  schema: string,
  init: { method: "GET" | "POST"; body?: string },
  tried: readonly string[] = [],
): Promise<Outcome> {
  const fail = (why: string) => controlPlaneErrors.mcpDiscoveryFailed(step, url, tried.length ? `${why} (also tried ${tried.join("; ")})` : why);
  let response: Response;
  let text: string | undefined;
  try {
    response = await fetcher(url, init);
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, status: response.status, error: fail(`HTTP ${response.status}`) };
    }
    text = await readAtMost(response, MAX_DOCUMENT_BYTES);
  } catch (err) {
    throw fail(networkReason(err));
  }
  if (text === undefined) throw fail(`the response is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw fail("the response is not JSON");
  }
  const problems = schemas().check(SCHEMA + schema, doc);
  if (problems.length) {
    const first = problems[0] as (typeof problems)[number];
    throw fail(`invalid ${step} document: ${pointerOf(first) || "(root)"}: ${remoteReason(first)}`);
  }
  return { ok: true, doc: doc as Record<string, unknown> };
}

/**
 * The provider keeps these members and later sends them in URLs, headers and forms, so they must be
 * Unicode text: a lone surrogate (valid JSON, `"\ud800"`) fails the step, without quoting it.
 */
function requireText(step: string, url: string, doc: Record<string, unknown>, members: readonly string[]): void {
  const bad = members.find((m) => typeof doc[m] === "string" && !isWellFormed(doc[m]));
  if (bad) throw controlPlaneErrors.mcpDiscoveryFailed(step, url, `invalid ${step} document: /${bad}: not well-formed Unicode text (a lone surrogate)`);
}

function httpUrl(text: string, step: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw controlPlaneErrors.mcpDiscoveryFailed(step, text, "not an absolute http(s) URL");
  return url;
}

function networkReason(err: unknown): string {
  if (err instanceof OutboundRefused) return err.message;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return `no response within ${DISCOVERY_TIMEOUT_MS / 1000} s`;
  return `the request failed (${e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err)})`;
}

/**
 * Why a remote document failed its schema, without quoting it: the remote side chose that content
 * (a metadata service's keys would otherwise come back verbatim in the mock's 400).
 */
function remoteReason(e: ErrorObject): string {
  if (e.keyword === "required") return "required property is missing";
  if (e.keyword === "additionalProperties") return "unknown property (not in the schema)";
  return e.message ?? e.keyword;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
