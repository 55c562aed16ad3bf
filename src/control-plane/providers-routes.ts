import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { validateBody } from "../http/validate.js";
import { schemas } from "../schemas/registry.js";
import type { ControlPlaneRoutes } from "./index.js";
import type { Tenancy } from "./tenancy.js";
import { controlPlaneErrors } from "./errors.js";
import { ProviderStore, providerResponse, type StoredProvider } from "./providers-store.js";
import { seedProviders } from "./providers-fixtures.js";
import { McpFixtureServers } from "./mcp-fixture-servers.js";
import { discoverMcpClient } from "./mcp-discovery.js";
import { discoveryFetch } from "./mcp-fetch.js";

const REQUESTS = "control-plane/oauth-provider.json#/$defs/";

interface CreateRequest {
  provider_id: string;
  name: string;
  client_id: string;
  client_secret?: string | null;
  auth_url: string;
  token_url: string;
  uses_pkce: boolean;
  code_challenge_method: string;
  provider_type?: string | null;
  token_endpoint_auth_method: string;
}

interface DiscoverRequest {
  provider_id: string;
  name: string;
  mcp_server_url: string;
}

/**
 * The auth service's OAuth providers (control-plane-notes §7), organization-scoped and looked up by
 * their `provider_id` slug, plus the fixture MCP servers that make MCP discovery work offline.
 * `client_secret` is stored but never returned.
 */
export function providersRoutes(ctx: MockContext, on: ControlPlaneRoutes, fixtures: FixtureSet, tenancy: Tenancy): void {
  const providers = new ProviderStore(ctx);
  seedProviders(ctx, fixtures, tenancy, providers);
  const mcpServers = new McpFixtureServers(ctx, fixtures);
  mcpServers.mount(on);

  const find = (providerId: string): StoredProvider => {
    const found = providers.get(tenancy.organizationId, providerId);
    if (!found) throw controlPlaneErrors.providerNotFound(providerId);
    return found;
  };
  const refuseDuplicate = (providerId: string) => {
    if (providers.get(tenancy.organizationId, providerId)) throw controlPlaneErrors.providerExists(providerId);
  };
  const stamp = () => ({ id: ctx.random.uuid4(), organization_id: tenancy.organizationId, created_at: ctx.clock.isoNow(), updated_at: ctx.clock.isoNow() });

  on.get("/v2/auth/providers", (_req, res) => {
    res.json(providers.list(tenancy.organizationId).map(providerResponse));
  });

  on.post("/v2/auth/providers", (req, res) => {
    const body = validateBody<CreateRequest>(`${REQUESTS}OAuthProviderCreateRequest`, req.body);
    refuseDuplicate(body.provider_id);
    const record = providers.set({
      ...stamp(),
      provider_id: body.provider_id,
      name: body.name,
      client_id: body.client_id,
      client_secret: body.client_secret ?? null,
      auth_url: body.auth_url,
      token_url: body.token_url,
      uses_pkce: body.uses_pkce,
      code_challenge_method: body.code_challenge_method,
      provider_type: body.provider_type ?? null,
      mcp_server_url: null,
      token_endpoint_auth_method: body.token_endpoint_auth_method,
      is_dynamic_client: false,
    });
    res.json(providerResponse(record));
  });

  on.post("/v2/auth/providers/mcp-discover", async (req, res) => {
    const body = validateBody<DiscoverRequest>(`${REQUESTS}MCPOAuthProviderCreateRequest`, req.body);
    refuseDuplicate(body.provider_id);
    const client = await discoverMcpClient(
      {
        mcpServerUrl: body.mcp_server_url,
        clientName: body.name,
        redirectUri: `${ctx.baseUrl(req)}/v2/auth/callback/${encodeURIComponent(body.provider_id)}`,
      },
      discoveryFetch(ctx, req, mcpServers),
    );
    // Another request may have taken the slug while discovery was waiting on the network.
    refuseDuplicate(body.provider_id);
    const record = providers.set({
      ...stamp(),
      provider_id: body.provider_id,
      name: body.name,
      ...client,
      provider_type: null,
      mcp_server_url: body.mcp_server_url,
      is_dynamic_client: true,
    });
    res.json(providerResponse(record));
  });

  on.get("/v2/auth/providers/:provider_id", (req, res) => {
    res.json(providerResponse(find(String(req.params.provider_id))));
  });

  on.patch("/v2/auth/providers/:provider_id", (req, res) => {
    const ref = `${REQUESTS}OAuthProviderUpdateRequest`;
    const body = validateBody<Record<string, unknown>>(ref, req.body);
    const current = find(String(req.params.provider_id));
    // Every field of the update request is nullable; null (or absent) leaves the field as it is.
    const next: Record<string, unknown> = { ...current };
    for (const field of Object.keys(schemas().resolve(ref).properties as object)) {
      if (body[field] !== undefined && body[field] !== null) next[field] = body[field];
    }
    next.updated_at = ctx.clock.isoNow();
    res.json(providerResponse(providers.set(next as unknown as StoredProvider)));
  });

  on.delete("/v2/auth/providers/:provider_id", (req, res) => {
    const record = find(String(req.params.provider_id));
    providers.delete(record);
    res.json({ provider_id: record.provider_id, deleted: true });
  });
}
