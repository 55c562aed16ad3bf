import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import type { Collection } from "../store/collection.js";
import type { AgentConnectionResponse, OAuthTokenSummary } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";

/**
 * The user the API key acts as: "the current user" of the token routes, and the default `user_id` of
 * `POST /v2/auth/authenticate`. The mock has one key, hence one user (docs/decisions/agent-auth.md).
 */
export const API_KEY_USER_ID = "00000000-0000-4000-8000-000000000003";

/** A user's token for a provider; the secrets never leave the store except as `token` of authenticate/wait. */
export interface StoredToken {
  id: string;
  organization_id: string;
  user_id: string;
  provider_id: string;
  scopes: string[];
  access_token: string;
  refresh_token: string | null;
  /** Mock-clock ms, or null when the provider gave no lifetime. */
  expires_at: number | null;
  provider_account_label: string | null;
  is_default: boolean;
  /** Epoch ms, formatted only by `tokenSummary`. */
  created_at: number;
  updated_at: number;
}

/** One authorization started by authenticate; `auth_id` is also the OAuth `state`. */
export interface AuthFlow {
  auth_id: string;
  organization_id: string;
  provider_id: string;
  user_id: string;
  agent_id: string | null;
  scopes: string[];
  code_verifier: string | null;
  redirect_uri: string;
  is_default: boolean;
  /** The token this flow renews (an expired one, or `token_id` of the request). */
  replaces: string | null;
  status: "pending" | "completed" | "failed";
  token_id: string | null;
  /** Mock-clock ms after which a pending flow is gone. */
  expires_at: number;
}

export interface AgentConnection {
  id: string;
  organization_id: string;
  agent_id: string;
  oauth_token_id: string;
  created_by: string;
  /** Epoch ms, formatted only by `connectionResponse`. */
  created_at: number;
}

/** The auth service's state: tokens, flows in progress and agent connections, each a store collection. */
export class AgentAuthStore {
  readonly tokens: Collection<StoredToken>;
  readonly flows: Collection<AuthFlow>;
  readonly connections: Collection<AgentConnection>;

  constructor(ctx: MockContext) {
    this.tokens = authTokensIn(ctx);
    this.flows = authFlowsIn(ctx);
    this.connections = agentConnectionsIn(ctx);
  }

  /** The tokens of a user in an organization, oldest first (insertion order), optionally for one provider. */
  tokensOf(organizationId: string, userId: string, providerId?: string): StoredToken[] {
    return [...this.tokens.values()].filter((t) => t.organization_id === organizationId && t.user_id === userId && (providerId === undefined || t.provider_id === providerId));
  }

  /** One default per user and provider: `token` becomes it, so the others of its user and provider stop being it. */
  unsetOtherDefaults(token: Pick<StoredToken, "id" | "organization_id" | "user_id" | "provider_id">, now: number): void {
    for (const t of this.tokensOf(token.organization_id, token.user_id, token.provider_id)) {
      if (t.is_default && t.id !== token.id) this.tokens.set(t.id, { ...t, is_default: false, updated_at: now });
    }
  }

  /** Deletes a token and every agent connection to it. */
  deleteToken(token: StoredToken): void {
    this.tokens.delete(token.id);
    for (const c of [...this.connections.values()]) if (c.oauth_token_id === token.id) this.connections.delete(c.id);
  }
}

/** `OAuthTokenSummary`: no secrets. */
export function tokenSummary(token: StoredToken): OAuthTokenSummary {
  return {
    id: token.id,
    provider_id: token.provider_id,
    provider_account_label: token.provider_account_label,
    scopes: token.scopes,
    expires_at: token.expires_at === null ? null : formatTimestamp(token.expires_at),
    is_default: token.is_default,
    created_at: formatTimestamp(token.created_at),
    updated_at: formatTimestamp(token.updated_at),
  };
}

/** `AgentConnectionResponse`: the connection with its token's public fields. */
export function connectionResponse(connection: AgentConnection, token: StoredToken): AgentConnectionResponse {
  return {
    id: connection.id,
    agent_id: connection.agent_id,
    oauth_token_id: connection.oauth_token_id,
    provider_id: token.provider_id,
    provider_account_label: token.provider_account_label,
    scopes: token.scopes,
    expires_at: token.expires_at === null ? null : formatTimestamp(token.expires_at),
    created_by: connection.created_by,
    created_at: formatTimestamp(connection.created_at),
  };
}

export const authTokensIn = declareCollection<StoredToken>("auth_tokens");
export const authFlowsIn = declareCollection<AuthFlow>("auth_flows");
export const agentConnectionsIn = declareCollection<AgentConnection>("agent_connections");
