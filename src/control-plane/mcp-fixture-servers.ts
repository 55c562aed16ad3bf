import type { MockContext } from "../context.js";
import { isPlainObject } from "../core/json.js";
import { schemas } from "../schemas/registry.js";
import type { McpServer } from "../schemas/types.gen.js";
import type { FixtureSet } from "../store/fixtures.js";
import { mcpFixtureErrors, NO_STORE } from "./mcp-fixture-errors.js";
import { McpFixtureOAuth } from "./mcp-fixture-oauth.js";

const SERVER_REF = "fixtures/mcp-server.json#/$defs/McpServer";

/** One `mcp_servers` fixture entry (fixtures/mcp-server.json), defaults filled in from its schema. */
export type McpServerConfig = McpServer & Required<Pick<McpServer, "scopes" | "dynamic_registration" | "code_challenge_methods" | "fail_status" | "clients">>;

/** What a fixture endpoint answers (its route replies with it). */
export interface FixtureAnswer {
  status: number;
  /** JSON body; none for a redirect. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request to a fixture endpoint, reduced to what the endpoints read. */
export interface FixtureCall {
  server: McpServerConfig;
  /** The mock's origin: every URL in the metadata is built on it. */
  base: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  authorization: string | undefined;
}

/** The URLs of one fixture server (docs/control-plane-auth-and-integrations.md lists them). */
export function fixtureServerUrls(base: string, slug: string) {
  const issuer = `${base}/_fixtures/mcp/${slug}`;
  return {
    resource: `${issuer}/mcp`,
    resourceMetadata: `${base}/.well-known/oauth-protected-resource/_fixtures/mcp/${slug}/mcp`,
    issuer,
    serverMetadata: `${base}/.well-known/oauth-authorization-server/_fixtures/mcp/${slug}`,
    registration: `${issuer}/register`,
    authorize: `${issuer}/authorize`,
    token: `${issuer}/token`,
  };
}

/** One fixture endpoint as data: the module declares a route for each. */
export interface FixtureRoute {
  name: string;
  method: "GET" | "POST";
  /** OpenAPI form: `/_fixtures/mcp/{slug}/token`. */
  path: string;
  answer: (call: FixtureCall) => FixtureAnswer;
}

/**
 * The fixture MCP servers (`mcp_servers` section): OAuth-protected MCP servers the mock serves
 * itself, so that `POST /v2/auth/providers/mcp-discover` works offline. Each publishes RFC 9728
 * and RFC 8414 metadata, registers clients (RFC 7591) and runs the authorization-code flow with
 * PKCE. The endpoints live under `/.well-known/…/_fixtures/mcp/<slug>` and `/_fixtures/mcp/<slug>/…`
 * and are served by their own module (mcp-fixture-routes.ts), without an API key.
 */
export class McpFixtureServers {
  private readonly servers = new Map<string, McpServerConfig>();
  private readonly oauth: McpFixtureOAuth;
  readonly routes: readonly FixtureRoute[];

  constructor(private readonly ctx: MockContext) {
    this.oauth = new McpFixtureOAuth(ctx);
    const route = (name: string, method: "GET" | "POST", path: string, answer: (call: FixtureCall) => FixtureAnswer): FixtureRoute => ({ name, method, path, answer });
    this.routes = [
      route("fixture_mcp.resource_metadata", "GET", "/.well-known/oauth-protected-resource/_fixtures/mcp/{slug}/mcp", (c) => this.resourceMetadata(c)),
      route("fixture_mcp.server_metadata", "GET", "/.well-known/oauth-authorization-server/_fixtures/mcp/{slug}", (c) => this.serverMetadata(c)),
      route("fixture_mcp.register", "POST", "/_fixtures/mcp/{slug}/register", (c) => this.register(c)),
      route("fixture_mcp.authorize", "GET", "/_fixtures/mcp/{slug}/authorize", (c) => this.oauth.authorize(c)),
      route("fixture_mcp.token", "POST", "/_fixtures/mcp/{slug}/token", (c) => this.oauth.token(c)),
      route("fixture_mcp.mcp", "POST", "/_fixtures/mcp/{slug}/mcp", (c) => this.oauth.mcp(c)),
    ];
  }

  /** The seed step: reads the `mcp_servers` fixture section (defaults filled in from its schema). */
  seed(fixtures: FixtureSet): void {
    for (const entry of fixtures.entries("mcp_servers")) {
      if (!fixtures.check(entry, SERVER_REF, entry.value)) continue;
      const config = structuredClone(entry.value);
      // Its defaults filled in: the entry passed the exact check, so a request-mode pass would find nothing to drop.
      schemas().validator(SERVER_REF, "defaults")(config);
      const server = config as unknown as McpServerConfig;
      if (this.servers.has(server.slug)) {
        fixtures.problem(entry, `duplicate slug ${JSON.stringify(server.slug)}`, "/slug");
        continue;
      }
      this.servers.set(server.slug, server);
      for (const [i, client] of server.clients.entries()) {
        if (this.oauth.hasClient(client.client_id)) {
          fixtures.problem(entry, `duplicate client_id ${JSON.stringify(client.client_id)}`, `/clients/${i}/client_id`);
          continue;
        }
        const secret = client.client_secret ?? null;
        this.oauth.addStaticClient({
          client_id: client.client_id,
          slug: server.slug,
          redirect_uris: client.redirect_uris,
          token_endpoint_auth_method: client.token_endpoint_auth_method ?? (secret === null ? "none" : "client_secret_post"),
          client_secret: secret,
        });
      }
    }
  }

  /** Answers one request to a fixture endpoint (the mounted route calls this with its validated input). */
  answer(route: FixtureRoute, slug: string, base: string, query: Record<string, string>, body: unknown, authorization: string | undefined): FixtureAnswer {
    const server = this.servers.get(slug);
    if (!server) return mcpFixtureErrors.notFound();
    return route.answer({ server, base, query, body: isPlainObject(body) ? body : {}, authorization });
  }

  private resourceMetadata({ server, base }: FixtureCall): FixtureAnswer {
    if (server.fail_at === "protected-resource-metadata") return mcpFixtureErrors.simulatedFailure(server.fail_status, server.fail_at);
    const urls = fixtureServerUrls(base, server.slug);
    return {
      status: 200,
      body: {
        resource: urls.resource,
        authorization_servers: [urls.issuer],
        scopes_supported: server.scopes,
        bearer_methods_supported: ["header"],
        resource_name: server.name ?? server.slug,
      },
    };
  }

  private serverMetadata({ server, base }: FixtureCall): FixtureAnswer {
    if (server.fail_at === "authorization-server-metadata") return mcpFixtureErrors.simulatedFailure(server.fail_status, server.fail_at);
    const urls = fixtureServerUrls(base, server.slug);
    return {
      status: 200,
      body: {
        issuer: urls.issuer,
        authorization_endpoint: urls.authorize,
        token_endpoint: urls.token,
        ...(server.dynamic_registration ? { registration_endpoint: urls.registration } : {}),
        scopes_supported: server.scopes,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
        ...(server.code_challenge_methods.length ? { code_challenge_methods_supported: server.code_challenge_methods } : {}),
      },
    };
  }

  /** RFC 7591 §3: registers a client; the ids come from the seeded random source. */
  private register({ server, body }: FixtureCall): FixtureAnswer {
    if (!server.dynamic_registration) return mcpFixtureErrors.notFound();
    if (server.fail_at === "client-registration") return mcpFixtureErrors.simulatedFailure(server.fail_status, server.fail_at);
    const redirectUris = body.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every((u) => typeof u === "string" && /^https?:\/\//.test(u))) {
      return mcpFixtureErrors.oauth("invalid_redirect_uri", "redirect_uris must be a non-empty list of http(s) URLs.");
    }
    const method = body.token_endpoint_auth_method ?? "client_secret_basic";
    if (method !== "none" && method !== "client_secret_post" && method !== "client_secret_basic") {
      return mcpFixtureErrors.oauth("invalid_client_metadata", `Unsupported token_endpoint_auth_method ${JSON.stringify(method)}.`);
    }
    const client = this.oauth.registerClient(server.slug, redirectUris as string[], method);
    return {
      status: 201,
      headers: NO_STORE,
      body: {
        client_id: client.client_id,
        client_id_issued_at: Math.floor(this.ctx.clock.now() / 1000),
        ...(client.client_secret ? { client_secret: client.client_secret, client_secret_expires_at: 0 } : {}),
        ...(typeof body.client_name === "string" ? { client_name: body.client_name } : {}),
        redirect_uris: client.redirect_uris,
        grant_types: Array.isArray(body.grant_types) ? body.grant_types : ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: method,
      },
    };
  }
}
