import type { FixtureAnswer } from "./mcp-fixture-servers.js";

/** Token endpoint and registration answers must not be cached (RFC 6749 §5.1, RFC 7591 §3.2.1). */
export const NO_STORE = { "Cache-Control": "no-store" };

/**
 * Every error the fixture MCP servers answer with. They play an OAuth authorization server and an
 * MCP resource server, so their errors have the OAuth shape `{"error", "error_description"}`
 * (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 6750 §3); an unknown server is the mock's plain 404.
 */
export const mcpFixtureErrors = {
  /** No fixture MCP server has this slug: the same answer as any unknown path. */
  notFound: (): FixtureAnswer => ({ status: 404, body: { detail: "Not Found" } }),
  /** `fail_at` of the fixture: the step answers with the configured status. */
  simulatedFailure: (status: number, step: string): FixtureAnswer => ({
    status,
    body: { error: "temporarily_unavailable", error_description: `Simulated failure of ${step} (fixture fail_at).` },
  }),
  /** 400 (or 401 for client authentication) with an OAuth error code. */
  oauth: (error: string, description: string, status = 400): FixtureAnswer => ({ status, body: { error, error_description: description }, headers: NO_STORE }),
  /** RFC 6750 §3 + MCP authorization: the challenge points the client at the protected-resource metadata. */
  invalidToken: (resourceMetadataUrl: string, description: string): FixtureAnswer => ({
    status: 401,
    body: { error: "invalid_token", error_description: description },
    headers: { "WWW-Authenticate": `Bearer error="invalid_token", resource_metadata="${resourceMetadataUrl}"` },
  }),
};
