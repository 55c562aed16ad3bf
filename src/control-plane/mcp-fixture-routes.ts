import { HttpError } from "../http/http-error.js";
import type { BodyProblem } from "../http/json-body.js";
import { object, reply, route, type ResponseSpec, type RouteSpec } from "../http/route.js";
import type { ServiceModule } from "../http/service-module.js";
import type { FixtureAnswer, FixtureRoute, McpFixtureServers } from "./mcp-fixture-servers.js";

const DOCS = "control-plane/mcp-discovery.json#/$defs/";
const SLUG = object({ slug: { type: "string" } });
const AUTHORIZATION = object({ authorization: { type: "string" } }, []);
/** What `authorize` reads of its query (RFC 6749 §4.1.1, RFC 7636 §4.3); other parameters are ignored. */
const AUTHORIZE_QUERY = object(
  Object.fromEntries(["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"].map((k) => [k, { type: "string" }])),
  [],
);

/** The success answers of each fixture endpoint; errors are the module's OAuth or 404 shape. */
const RESPONSES: Record<string, Record<number, ResponseSpec>> = {
  "fixture_mcp.resource_metadata": { 200: `${DOCS}ProtectedResourceMetadata` },
  "fixture_mcp.server_metadata": { 200: `${DOCS}AuthorizationServerMetadata` },
  "fixture_mcp.register": { 201: `${DOCS}ClientRegistrationResponse` },
  "fixture_mcp.authorize": { 302: null },
  "fixture_mcp.token": { 200: `${DOCS}TokenResponse` },
  "fixture_mcp.mcp": { 200: `${DOCS}JsonRpcResponse`, 202: null },
};

/**
 * The fixture MCP/OAuth servers as a module of their own: no API key (they play third-party servers),
 * OAuth endpoints read JSON or forms, and their errors have the OAuth shape. Their fixtures are read
 * in the control plane's seed step (tenants → integrations → providers → fixture servers → deployments).
 */
export function fixtureServersModule(servers: McpFixtureServers): ServiceModule {
  return {
    name: "fixture-servers",
    prefixes: [""],
    cors: false,
    bodyError: oauthBodyError,
    // Only the path's slug and optional strings are declared: nothing a request sends can fail them.
    invalid: () => oauthError(400, "invalid_request", "The request is malformed."),
    errorSchema: `${DOCS}FixtureServerError`,
    routes: servers.routes.map((r) => declaration(servers, r)),
  };
}

function declaration(servers: McpFixtureServers, fixture: FixtureRoute): RouteSpec {
  return route<{ params: { slug: string }; query: Record<string, string>; headers: { authorization?: string } }>({
    name: fixture.name,
    method: fixture.method,
    path: fixture.path,
    params: SLUG,
    ...(fixture.name === "fixture_mcp.authorize" ? { query: AUTHORIZE_QUERY } : {}),
    headers: AUTHORIZATION,
    ...(fixture.method === "POST" ? { bodyKind: "json-or-form" as const } : {}),
    responses: RESPONSES[fixture.name] ?? {},
    handler: ({ params, query, headers, body, scope }) => asReply(servers.answer(fixture, params.slug, scope.baseUrl, query, body, headers.authorization)),
  });
}

function asReply(answer: FixtureAnswer) {
  return reply(answer.status, answer.body, answer.headers);
}

function oauthError(status: number, error: string, description: string): HttpError {
  return new HttpError(status, { error, error_description: description }, { "Cache-Control": "no-store" });
}

/** A body the OAuth endpoints cannot read: RFC 6749 §5.2 `invalid_request` (413 when too large). */
function oauthBodyError(problem: BodyProblem): HttpError {
  if (problem.kind === "too_large") return oauthError(413, "invalid_request", "The request body is too large.");
  return oauthError(400, "invalid_request", `The request body is not valid JSON: ${problem.message}`);
}
