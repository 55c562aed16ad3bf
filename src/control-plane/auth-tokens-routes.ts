import { object, listOf, reply, route, type RouteSpec } from "../http/route.js";
import type { AgentAuth } from "./agent-auth.js";
import { API_KEY_USER_ID, connectionResponse, tokenSummary, type StoredToken } from "./agent-auth-store.js";
import { controlPlaneErrors } from "./errors.js";
import type { ProviderStore } from "./providers-store.js";
import type { Tenancy } from "./tenancy.js";
import type { CreateAgentConnectionRequest, OAuthTokenUpdateRequest, TokensListQuery, TokensProviderQuery } from "../schemas/types.gen.js";

const SCHEMA = "control-plane/agent-auth.json#/$defs/";
const TOKEN_PATH = object({ token_id: { type: "string" } });
const AGENT_PATH = object({ agent_id: { type: "string" } });

/**
 * The current user's tokens (`/v2/auth/tokens…`), the organization's Slack tokens and agent
 * connections (control-plane-notes §4). "The current user" is the API key's user; the tokens of other
 * `user_id`s (end users an agent authenticated) are reached through authenticate and connections.
 * Deleting a token removes its connections; there is no revocation at the provider (the fixture servers
 * have no revocation endpoint).
 */
export function authTokensRoutes(auth: AgentAuth, providers: ProviderStore, tenancy: Tenancy): RouteSpec[] {
  const { store } = auth;
  const org = () => tenancy.organizationId;
  const mine = (providerId?: string) => store.tokensOf(org(), API_KEY_USER_ID, providerId);
  const ownToken = (tokenId: string): StoredToken => {
    const token = store.tokens.get(tokenId);
    if (!token || token.organization_id !== org() || token.user_id !== API_KEY_USER_ID) throw controlPlaneErrors.tokenNotFound(tokenId);
    return token;
  };
  const slackTokens = () =>
    [...store.tokens.values()].filter((t) => t.organization_id === org() && providers.get(org(), t.provider_id)?.provider_type === "slack");

  return [
    route<{ query: TokensListQuery }>({
      name: "auth.tokens.list",
      method: "GET",
      path: "/v2/auth/tokens",
      query: `${SCHEMA}TokensListQuery`,
      responses: { 200: listOf(`${SCHEMA}OAuthTokenSummary`) },
      handler: ({ query }) => mine(query.provider_id ?? undefined).map(tokenSummary),
    }),
    route<{ query: TokensProviderQuery }>({
      name: "auth.tokens.delete",
      method: "DELETE",
      path: "/v2/auth/tokens",
      query: `${SCHEMA}TokensProviderQuery`,
      responses: { 200: `${SCHEMA}TokensDeleted` },
      handler: ({ query }) => {
        const tokens = mine(query.provider_id);
        for (const token of tokens) store.deleteToken(token);
        return { deleted: tokens.length };
      },
    }),
    route<{ query: TokensProviderQuery }>({
      name: "auth.tokens.exists",
      method: "GET",
      path: "/v2/auth/tokens/exists",
      query: `${SCHEMA}TokensProviderQuery`,
      responses: { 200: `${SCHEMA}OAuthTokenStatusResponse` },
      handler: ({ query }) => ({ has_token: mine(query.provider_id).length > 0 }),
    }),
    route({
      name: "auth.tokens.slack_exists",
      method: "GET",
      path: "/v2/auth/tokens/workspace/slack/exists",
      responses: { 200: `${SCHEMA}OAuthTokenStatusResponse` },
      handler: () => ({ has_token: slackTokens().length > 0 }),
    }),
    route({
      name: "auth.tokens.slack_revoke",
      method: "DELETE",
      path: "/v2/auth/tokens/workspace/slack",
      responses: { 200: `${SCHEMA}TokensDeleted` },
      handler: () => {
        const tokens = slackTokens();
        for (const token of tokens) store.deleteToken(token);
        return { deleted: tokens.length };
      },
    }),
    route<{ params: { token_id: string }; body: OAuthTokenUpdateRequest }>({
      name: "auth.tokens.update_metadata",
      method: "PATCH",
      path: "/v2/auth/tokens/{token_id}/metadata",
      params: TOKEN_PATH,
      body: `${SCHEMA}OAuthTokenUpdateRequest`,
      responses: { 200: `${SCHEMA}OAuthTokenSummary` },
      handler: ({ params, body }) => {
        const token = ownToken(params.token_id);
        const now = auth.now();
        if (body.is_default === true) store.unsetOtherDefaults(token, now);
        const updated = store.tokens.set(token.id, {
          ...token,
          // Absent leaves the label; null clears it (the request's field is nullable on purpose).
          provider_account_label: body.provider_account_label === undefined ? token.provider_account_label : body.provider_account_label,
          is_default: body.is_default ?? token.is_default,
          updated_at: now,
        });
        return tokenSummary(updated);
      },
    }),
    route<{ params: { token_id: string } }>({
      name: "auth.tokens.delete_one",
      method: "DELETE",
      path: "/v2/auth/tokens/{token_id}",
      params: TOKEN_PATH,
      responses: { 204: null },
      handler: ({ params }) => {
        store.deleteToken(ownToken(params.token_id));
        return reply(204);
      },
    }),
    route<{ params: { agent_id: string } }>({
      name: "auth.connections.list",
      method: "GET",
      path: "/v2/auth/agents/{agent_id}/connections",
      params: AGENT_PATH,
      responses: { 200: `${SCHEMA}AgentConnectionListResponse` },
      handler: ({ params }) => ({
        data: store.connections
          .filter((c) => c.organization_id === org() && c.agent_id === params.agent_id)
          .flatMap((c) => {
            const token = store.tokens.get(c.oauth_token_id);
            return token ? [connectionResponse(c, token)] : [];
          }),
      }),
    }),
    route<{ params: { agent_id: string }; body: CreateAgentConnectionRequest }>({
      name: "auth.connections.create",
      method: "POST",
      path: "/v2/auth/agents/{agent_id}/connections",
      params: AGENT_PATH,
      body: `${SCHEMA}CreateAgentConnectionRequest`,
      responses: { 201: `${SCHEMA}AgentConnectionResponse` },
      handler: ({ params, body }) => {
        const token = ownToken(body.oauth_token_id);
        return reply(201, connectionResponse(auth.connect(params.agent_id, token, API_KEY_USER_ID), token));
      },
    }),
    route<{ params: { agent_id: string; connection_id: string } }>({
      name: "auth.connections.delete",
      method: "DELETE",
      path: "/v2/auth/agents/{agent_id}/connections/{connection_id}",
      params: object({ agent_id: { type: "string" }, connection_id: { type: "string" } }),
      responses: { 204: null },
      handler: ({ params }) => {
        const connection = store.connections.get(params.connection_id);
        if (!connection || connection.organization_id !== org() || connection.agent_id !== params.agent_id) throw controlPlaneErrors.connectionNotFound(params.connection_id);
        store.connections.delete(connection.id);
        return reply(204);
      },
    }),
  ];
}
