import type { MCPOAuthProviderCreateRequest, OAuthProviderCreateRequest } from "../schemas/types.gen.js";
import type { MockContext } from "../context.js";
import { listOf, object, route, type RouteSpec } from "../http/route.js";
import { schemas } from "../schemas/registry.js";
import type { Tenancy } from "./tenancy.js";
import { controlPlaneErrors, refuseIllFormedText } from "./errors.js";
import { SENT_ON, providerResponse, type ProviderStore, type StoredProvider } from "./providers-store.js";
import { discoverMcpClient } from "./mcp-discovery.js";
import { discoveryFetch } from "./mcp-fetch.js";
import { wellFormed } from "../core/json.js";

const SCHEMA = "control-plane/oauth-provider.json#/$defs/";
const PROVIDER = `${SCHEMA}OAuthProvider`;
const UPDATE = `${SCHEMA}OAuthProviderUpdateRequest`;
const PROVIDER_PATH = object({ provider_id: { type: "string" } });

/** Each body's fields of SENT_ON: a lone surrogate there is refused before anything is stored. */
const SENT_ON_BY_BODY = {
  create: SENT_ON.filter((f) => f !== "mcp_server_url"),
  update: SENT_ON.filter((f) => f !== "mcp_server_url" && f !== "provider_id"),
  discover: ["provider_id", "mcp_server_url"],
};

/** The create body after validation: the schema's defaults are filled in. */
type CreateRequest = OAuthProviderCreateRequest & Required<Pick<OAuthProviderCreateRequest, "uses_pkce" | "code_challenge_method" | "token_endpoint_auth_method">>;
type DiscoverRequest = MCPOAuthProviderCreateRequest;

/**
 * The auth service's OAuth providers (control-plane-notes §7), organization-scoped and looked up by
 * their `provider_id` slug; MCP discovery reaches the fixture MCP servers in-process when it must.
 * `client_secret` is stored but never returned.
 */
export function providersRoutes(ctx: MockContext, providers: ProviderStore, tenancy: Tenancy): RouteSpec[] {
  const find = (providerId: string): StoredProvider => providers.require(tenancy.organizationId, providerId);
  const refuseDuplicate = (providerId: string) => {
    if (providers.get(tenancy.organizationId, providerId)) throw controlPlaneErrors.providerExists(providerId);
  };
  const stamp = () => ({ id: ctx.random.uuid4(), organization_id: tenancy.organizationId, created_at: ctx.clock.now(), updated_at: ctx.clock.now() });
  // A discovery still waiting on the network when the store is reset belongs to the test before it.
  let resets = 0;
  ctx.onReset("store", () => resets++);

  return [
    route({
      name: "providers.list",
      method: "GET",
      path: "/v2/auth/providers",
      responses: { 200: listOf(PROVIDER) },
      handler: () => providers.list(tenancy.organizationId).map(providerResponse),
    }),
    route<{ body: CreateRequest }>({
      name: "providers.create",
      method: "POST",
      path: "/v2/auth/providers",
      body: `${SCHEMA}OAuthProviderCreateRequest`,
      responses: { 200: PROVIDER },
      handler: ({ body }) => {
        refuseIllFormedText(body, SENT_ON_BY_BODY.create);
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
        return providerResponse(record);
      },
    }),
    route<{ body: DiscoverRequest }>({
      name: "providers.mcp_discover",
      method: "POST",
      path: "/v2/auth/providers/mcp-discover",
      body: `${SCHEMA}MCPOAuthProviderCreateRequest`,
      responses: { 200: PROVIDER },
      handler: async ({ body, scope }) => {
        refuseIllFormedText(body, SENT_ON_BY_BODY.discover);
        refuseDuplicate(body.provider_id);
        const startedAfter = resets;
        const client = await discoverMcpClient(
          {
            mcpServerUrl: body.mcp_server_url,
            clientName: body.name,
            redirectUri: `${scope.baseUrl}/v2/auth/callback/${encodeURIComponent(wellFormed(body.provider_id))}`,
          },
          discoveryFetch(scope, ctx.options.allowOutbound),
        );
        // Another request may have taken the slug while discovery was waiting on the network.
        refuseDuplicate(body.provider_id);
        const record: StoredProvider = {
          ...stamp(),
          provider_id: body.provider_id,
          name: body.name,
          ...client,
          provider_type: null,
          mcp_server_url: body.mcp_server_url,
          is_dynamic_client: true,
        };
        // Answered as discovered, but a reset meanwhile means the state it would join is gone: not stored.
        if (startedAfter === resets) providers.set(record);
        return providerResponse(record);
      },
    }),
    route<{ params: { provider_id: string } }>({
      name: "providers.get",
      method: "GET",
      path: "/v2/auth/providers/{provider_id}",
      params: PROVIDER_PATH,
      responses: { 200: PROVIDER },
      handler: ({ params }) => providerResponse(find(params.provider_id)),
    }),
    route<{ params: { provider_id: string }; body: Record<string, unknown> }>({
      name: "providers.update",
      method: "PATCH",
      path: "/v2/auth/providers/{provider_id}",
      params: PROVIDER_PATH,
      body: UPDATE,
      responses: { 200: PROVIDER },
      handler: ({ params, body }) => {
        refuseIllFormedText(body, SENT_ON_BY_BODY.update);
        const current = find(params.provider_id);
        // Every field of the update request is nullable; null (or absent) leaves the field as it is.
        const next: Record<string, unknown> = { ...current };
        for (const field of Object.keys(schemas().resolve(UPDATE).properties as object)) {
          if (body[field] !== undefined && body[field] !== null) next[field] = body[field];
        }
        next.updated_at = ctx.clock.now();
        return providerResponse(providers.set(next as unknown as StoredProvider));
      },
    }),
    route<{ params: { provider_id: string } }>({
      name: "providers.delete",
      method: "DELETE",
      path: "/v2/auth/providers/{provider_id}",
      params: PROVIDER_PATH,
      responses: { 200: `${SCHEMA}OAuthProviderDeleted` },
      handler: ({ params }) => {
        const record = find(params.provider_id);
        providers.delete(record);
        return { provider_id: record.provider_id, deleted: true };
      },
    }),
  ];
}
