import { createHash } from "node:crypto";
import type { MockContext } from "../context.js";
import { instantAfterClamped } from "../core/clock.js";
import { sameSecret } from "../http/api-key.js";
import type { Collection } from "../store/collection.js";
import { fixtureServerUrls, type FixtureAnswer, type FixtureCall } from "./mcp-fixture-servers.js";
import { mcpFixtureErrors, NO_STORE } from "./mcp-fixture-errors.js";
import { declareCollection } from "../store/store.js";

/** A client registered at a fixture server. */
export interface FixtureClient {
  client_id: string;
  slug: string;
  redirect_uris: string[];
  token_endpoint_auth_method: "none" | "client_secret_post" | "client_secret_basic";
  client_secret: string | null;
}

export interface AuthorizationCode {
  client_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  scope: string;
  expires_at: number;
}

export interface IssuedToken {
  kind: "access" | "refresh";
  client_id: string;
  slug: string;
  scope: string;
  expires_at: number;
}

const CODE_TTL_MS = 10 * 60_000;
const ACCESS_TTL_S = 3600;
const REFRESH_TTL_MS = 30 * 86_400_000;
/** The MCP revision the fixture servers speak when the client names none. */
const MCP_PROTOCOL_VERSION = "2025-06-18";

/**
 * The authorization-code flow of the fixture MCP servers, so that a client can go on from
 * discovery to a token and an authorized MCP call, offline: `authorize` approves at once and
 * redirects with a code, `token` checks PKCE and client credentials and issues bearer tokens, and
 * the MCP endpoint accepts them (`initialize`, `ping`). Codes and tokens live on the mock's clock.
 */
export class McpFixtureOAuth {
  private readonly clients: Collection<FixtureClient>;
  private readonly codes: Collection<AuthorizationCode>;
  private readonly tokens: Collection<IssuedToken>;

  constructor(private readonly ctx: MockContext) {
    this.clients = mcpClientsIn(ctx);
    this.codes = mcpCodesIn(ctx);
    this.tokens = mcpTokensIn(ctx);
  }

  registerClient(slug: string, redirectUris: string[], method: FixtureClient["token_endpoint_auth_method"]): FixtureClient {
    const client: FixtureClient = {
      client_id: `${slug}-${this.ctx.random.hex(24)}`,
      slug,
      redirect_uris: [...redirectUris],
      token_endpoint_auth_method: method,
      client_secret: method === "none" ? null : this.ctx.random.hex(40),
    };
    return this.clients.set(client.client_id, client);
  }

  /** A client of the `clients` fixture list: its id and secret as written (the seed step calls this). */
  addStaticClient(client: FixtureClient): FixtureClient {
    return this.clients.set(client.client_id, { ...client, redirect_uris: [...client.redirect_uris] });
  }

  hasClient(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  /** Approves at once (there is no user to ask) and redirects back with a code or an error. */
  authorize({ server, base, query }: FixtureCall): FixtureAnswer {
    const client = this.clients.get(query.client_id ?? "");
    if (!client || client.slug !== server.slug) return mcpFixtureErrors.oauth("invalid_client", `Unknown client_id ${JSON.stringify(query.client_id ?? null)}.`);
    // A fixture client may register paths: they are on the mock's own origin, which a fixture cannot know.
    const registered = client.redirect_uris.map((uri) => (uri.startsWith("/") ? new URL(uri, base).href : uri));
    const redirectUri = query.redirect_uri ?? (registered.length === 1 ? registered[0] : undefined);
    if (!redirectUri || !registered.includes(redirectUri)) {
      return mcpFixtureErrors.oauth("invalid_request", "redirect_uri is missing or not registered for this client.");
    }
    const back = (params: Record<string, string>): FixtureAnswer => {
      const url = new URL(redirectUri);
      for (const [key, value] of Object.entries({ ...params, ...(query.state !== undefined ? { state: query.state } : {}) })) url.searchParams.set(key, value);
      return { status: 302, headers: { Location: url.href } };
    };
    if (query.response_type !== "code") return back({ error: "unsupported_response_type" });
    const challenge = query.code_challenge ?? null;
    const method = challenge ? (query.code_challenge_method ?? "plain") : null;
    if (server.code_challenge_methods.length && !challenge) return back({ error: "invalid_request", error_description: "code_challenge is required" });
    if (method && !(server.code_challenge_methods as readonly string[]).includes(method)) return back({ error: "invalid_request", error_description: `code_challenge_method ${method} is not supported` });
    const code = this.ctx.random.hex(32);
    this.codes.set(code, {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: method,
      scope: query.scope ?? server.scopes.join(" "),
      expires_at: instantAfterClamped(this.ctx.clock.now(), CODE_TTL_MS),
    });
    return back({ code });
  }

  /** RFC 6749 §4.1.3 and §6, with PKCE (RFC 7636 §4.6). */
  token({ server, body, authorization }: FixtureCall): FixtureAnswer {
    const form = (key: string) => (typeof body[key] === "string" ? (body[key] as string) : undefined);
    const basic = basicCredentials(authorization);
    const client = this.clients.get(basic?.id ?? form("client_id") ?? "");
    if (!client || client.slug !== server.slug) return mcpFixtureErrors.oauth("invalid_client", "Unknown client.", 401);
    if (client.client_secret !== null && !sameSecret(client.client_secret, basic?.secret ?? form("client_secret") ?? "")) {
      return mcpFixtureErrors.oauth("invalid_client", "Client authentication failed.", 401);
    }
    const now = this.ctx.clock.now();
    const grant = form("grant_type");
    if (grant === "authorization_code") {
      const code = this.codes.get(form("code") ?? "");
      if (!code || code.client_id !== client.client_id || code.expires_at <= now) return mcpFixtureErrors.oauth("invalid_grant", "The authorization code is invalid or expired.");
      if (form("redirect_uri") !== undefined && form("redirect_uri") !== code.redirect_uri) return mcpFixtureErrors.oauth("invalid_grant", "redirect_uri does not match the authorization request.");
      if (code.code_challenge && !pkceMatches(code.code_challenge, code.code_challenge_method, form("code_verifier"))) {
        return mcpFixtureErrors.oauth("invalid_grant", "PKCE verification failed.");
      }
      this.codes.delete(form("code") as string);
      return this.issue(client, code.scope, now);
    }
    if (grant === "refresh_token") {
      const refresh = this.tokens.get(form("refresh_token") ?? "");
      if (!refresh || refresh.kind !== "refresh" || refresh.client_id !== client.client_id || refresh.expires_at <= now) {
        return mcpFixtureErrors.oauth("invalid_grant", "The refresh token is invalid or expired.");
      }
      this.tokens.delete(form("refresh_token") as string);
      return this.issue(client, refresh.scope, now);
    }
    return mcpFixtureErrors.oauth("unsupported_grant_type", `Unsupported grant_type ${JSON.stringify(grant ?? null)}.`);
  }

  /** The MCP endpoint: a bearer token of this server is required (else the 401 that starts discovery). */
  mcp({ server, base, body, authorization }: FixtureCall): FixtureAnswer {
    const metadataUrl = fixtureServerUrls(base, server.slug).resourceMetadata;
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1];
    if (!bearer) return mcpFixtureErrors.invalidToken(metadataUrl, "A bearer token is required.");
    const token = this.tokens.get(bearer);
    if (!token || token.kind !== "access" || token.slug !== server.slug || token.expires_at <= this.ctx.clock.now()) {
      return mcpFixtureErrors.invalidToken(metadataUrl, "The access token is invalid or expired.");
    }
    if (body.id === undefined) return { status: 202 };
    const reply = (payload: Record<string, unknown>): FixtureAnswer => ({ status: 200, body: { jsonrpc: "2.0", id: body.id, ...payload } });
    const params = (body.params ?? {}) as Record<string, unknown>;
    if (body.method === "initialize") {
      return reply({
        result: {
          protocolVersion: typeof params.protocolVersion === "string" ? params.protocolVersion : MCP_PROTOCOL_VERSION,
          capabilities: {},
          serverInfo: { name: server.name ?? server.slug, version: "1.0.0" },
        },
      });
    }
    if (body.method === "ping") return reply({ result: {} });
    return reply({ error: { code: -32601, message: `Method not found: ${String(body.method)}` } });
  }

  private issue(client: FixtureClient, scope: string, now: number): FixtureAnswer {
    const access = this.ctx.random.hex(40);
    const refresh = this.ctx.random.hex(40);
    this.tokens.set(access, { kind: "access", client_id: client.client_id, slug: client.slug, scope, expires_at: instantAfterClamped(now, ACCESS_TTL_S * 1000) });
    this.tokens.set(refresh, { kind: "refresh", client_id: client.client_id, slug: client.slug, scope, expires_at: instantAfterClamped(now, REFRESH_TTL_MS) });
    return { status: 200, headers: NO_STORE, body: { access_token: access, token_type: "Bearer", expires_in: ACCESS_TTL_S, refresh_token: refresh, scope } };
  }
}

function pkceMatches(challenge: string, method: string | null, verifier: string | undefined): boolean {
  if (!verifier) return false;
  const derived = method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  return sameSecret(derived, challenge);
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const encoded = /^Basic\s+(.+)$/i.exec(header ?? "")?.[1];
  if (!encoded) return undefined;
  const text = Buffer.from(encoded, "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded.
  try {
    return { id: decodeURIComponent(text.slice(0, colon)), secret: decodeURIComponent(text.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

export const mcpClientsIn = declareCollection<FixtureClient>("mcp_fixture_clients");
export const mcpCodesIn = declareCollection<AuthorizationCode>("mcp_fixture_codes");
export const mcpTokensIn = declareCollection<IssuedToken>("mcp_fixture_tokens");
