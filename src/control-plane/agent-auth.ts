import { createHash } from "node:crypto";
import type { MockContext } from "../context.js";
import { formatTimestamp, instantAfterClamped } from "../core/clock.js";
import { wellFormed } from "../core/json.js";
import type { RequestScope } from "../http/route.js";
import type { AuthAuthenticateRequest, AuthAuthenticateResponse, AuthWaitResponse } from "../schemas/types.gen.js";
import { controlPlaneErrors } from "./errors.js";
import { API_KEY_USER_ID, type AgentAuthStore, type AuthFlow, type StoredToken } from "./agent-auth-store.js";
import { requestToken, type TokenClient, type TokenEndpointFetch, type TokenGrant } from "./auth-token-exchange.js";
import type { ProviderStore, StoredProvider } from "./providers-store.js";
import type { Tenancy } from "./tenancy.js";

/** How long a started authorization waits for its callback (mock clock). */
export const AUTH_FLOW_TTL_MS = 10 * 60_000;

/**
 * The longest `wait` (the older document's default). A seeded clock jumps over a wait, so an unbounded
 * `timeout` could throw it years ahead.
 */
export const MAX_WAIT_SECONDS = 300;

/** The validated request: the registrar filled the schema's defaults. */
export type AuthenticateRequest = AuthAuthenticateRequest & Required<Pick<AuthAuthenticateRequest, "force_new" | "is_default">>;

/** Every field present, as FastAPI serializes the response model. */
export type AuthenticateResponse = Required<AuthAuthenticateResponse>;

/** What a callback (GET or POST, or the GitHub App setup URL) brings back from the provider. */
export interface CallbackInput {
  providerId: string;
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

/**
 * The agent-auth flow (control-plane-notes §4 and §7): `authenticate` hands back a token the user
 * already has — refreshed at the provider's token endpoint when it expired on the mock clock — or an
 * authorization URL on the provider (PKCE when the provider uses it, `state` = `auth_id`); the
 * provider's redirect to `/v2/auth/callback/{provider_id}` is exchanged for a token over HTTP; `wait`
 * answers once the callback completed. Providers and tokens belong to the organization; tokens to a
 * user within it.
 */
export class AgentAuth {
  /** Requests waiting in `wait`, woken when their flow completes (not state: nothing to reset). */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly ctx: MockContext,
    readonly store: AgentAuthStore,
    private readonly providers: ProviderStore,
    private readonly tenancy: Tenancy,
  ) {}

  /** The mock clock's now, in epoch ms as records store it. */
  now(): number {
    return this.ctx.clock.now();
  }

  provider(providerId: string): StoredProvider {
    return this.providers.require(this.tenancy.organizationId, providerId);
  }

  async authenticate(body: AuthenticateRequest, scope: RequestScope, fetcher: TokenEndpointFetch): Promise<AuthenticateResponse> {
    const provider = this.provider(body.provider);
    const userId = body.user_id ?? body.ls_user_id ?? API_KEY_USER_ID;
    const agentId = body.agent_id ?? null;
    const answer = (status: AuthenticateResponse["status"], rest: Partial<AuthenticateResponse>): AuthenticateResponse => ({
      status,
      url: null,
      auth_id: null,
      token: null,
      user_id: userId,
      metadata: null,
      ...rest,
    });

    const named = body.token_id ? this.ownToken(body.token_id, userId, provider.provider_id) : undefined;
    const existing = body.force_new ? undefined : (named ?? this.bestToken(userId, provider.provider_id, body.scopes, agentId));
    if (existing) {
      if (agentId !== null && !this.isConnected(agentId, existing)) {
        return answer("connection_required", { metadata: { provider_id: provider.provider_id, token_id: existing.id, agent_id: agentId } });
      }
      const live = this.isExpired(existing) ? await this.refresh(provider, existing, scope.baseUrl, fetcher) : existing;
      if (live) return answer("completed", { token: live.access_token, metadata: tokenMetadata(live) });
      const flow = this.startFlow(provider, userId, agentId, body.scopes, body.is_default, existing.id, scope);
      return answer("token_expired", { url: authorizationUrl(provider, flow, scope.baseUrl), auth_id: flow.auth_id });
    }
    const flow = this.startFlow(provider, userId, agentId, body.scopes, body.is_default, named?.id ?? null, scope);
    return answer("pending", { url: authorizationUrl(provider, flow, scope.baseUrl), auth_id: flow.auth_id });
  }

  /**
   * The provider's redirect: checks `state` against a pending flow of this provider, exchanges the code
   * at the token endpoint and stores the token (connecting it to the flow's agent). A provider error
   * ends the flow; a failed exchange too (the code is spent either way).
   */
  async callback(input: CallbackInput, base: string, fetcher: TokenEndpointFetch): Promise<{ flow: AuthFlow; token: StoredToken }> {
    if (input.state === undefined) throw controlPlaneErrors.authCodeMissing();
    const flow = this.pendingFlow(input.state);
    if (!flow || flow.provider_id !== input.providerId) throw controlPlaneErrors.authStateInvalid();
    const provider = this.provider(flow.provider_id);
    if (input.error !== undefined) {
      this.store.flows.set(flow.auth_id, { ...flow, status: "failed" });
      throw controlPlaneErrors.authProviderError(input.error, input.error_description);
    }
    if (input.code === undefined) throw controlPlaneErrors.authCodeMissing();
    const grant = { grant_type: "authorization_code", code: input.code, redirect_uri: flow.redirect_uri, ...(flow.code_verifier ? { code_verifier: flow.code_verifier } : {}) };
    const outcome = await requestToken(tokenClient(provider, base), grant, fetcher);
    // Another callback with the same state may have finished the flow while this one was on the network.
    const current = this.pendingFlow(flow.auth_id);
    if (!current) throw controlPlaneErrors.authStateInvalid();
    if (!outcome.ok) {
      this.store.flows.set(flow.auth_id, { ...current, status: "failed" });
      throw controlPlaneErrors.tokenExchangeFailed(onOrigin(provider.token_url, base), outcome.why);
    }
    const token = this.saveToken(current, outcome.grant);
    if (current.agent_id !== null) this.connect(current.agent_id, token, current.user_id);
    const done = this.store.flows.set(current.auth_id, { ...current, status: "completed", token_id: token.id });
    this.wake(done.auth_id);
    return { flow: done, token };
  }

  /**
   * `wait`: the token once the flow completed; else waits on the mock clock (woken by the callback)
   * for at most `timeoutSeconds`. An unknown or expired `auth_id` is `not_found`; a failed flow never
   * completes, so it waits out the timeout like a pending one.
   */
  async wait(authId: string, timeoutSeconds: number, signal: AbortSignal): Promise<Required<AuthWaitResponse>> {
    const read = () => {
      const flow = this.store.flows.get(authId);
      if (!flow || (flow.status !== "completed" && flow.expires_at <= this.ctx.clock.now())) return { status: "not_found" as const, token: null };
      if (flow.status !== "completed") return undefined;
      const token = flow.token_id ? this.store.tokens.get(flow.token_id) : undefined;
      return token ? { status: "completed" as const, token: token.access_token } : { status: "not_found" as const, token: null };
    };
    const now = read();
    if (now) return now;
    if (timeoutSeconds <= 0) return { status: "pending", token: null };
    await this.sleepUntilWoken(authId, Math.min(timeoutSeconds, MAX_WAIT_SECONDS) * 1000, signal);
    return read() ?? { status: "timeout", token: null };
  }

  /** Connects a token to an agent; an agent holds one connection per provider, so a new one replaces it. */
  connect(agentId: string, token: StoredToken, createdBy: string) {
    const connections = this.store.connections;
    for (const c of [...connections.values()]) {
      if (c.organization_id !== token.organization_id || c.agent_id !== agentId) continue;
      if (c.oauth_token_id === token.id) return c;
      if (this.store.tokens.get(c.oauth_token_id)?.provider_id === token.provider_id) connections.delete(c.id);
    }
    const id = this.ctx.random.uuid4();
    return connections.set(id, { id, organization_id: token.organization_id, agent_id: agentId, oauth_token_id: token.id, created_by: createdBy, created_at: this.ctx.clock.now() });
  }

  private ownToken(tokenId: string, userId: string, providerId: string): StoredToken {
    const token = this.store.tokens.get(tokenId);
    if (!token || token.organization_id !== this.tenancy.organizationId || token.user_id !== userId || token.provider_id !== providerId) {
      throw controlPlaneErrors.tokenNotFound(tokenId);
    }
    return token;
  }

  /** The user's token covering the scopes: the agent's connected one first, then the default, then the newest. */
  private bestToken(userId: string, providerId: string, scopes: string[], agentId: string | null): StoredToken | undefined {
    const covering = this.store.tokensOf(this.tenancy.organizationId, userId, providerId).filter((t) => scopes.every((s) => t.scopes.includes(s)));
    const rank = (t: StoredToken) => (agentId !== null && this.isConnected(agentId, t) ? 2 : 0) + (t.is_default ? 1 : 0);
    return covering.reduce<StoredToken | undefined>((best, t) => (!best || rank(t) >= rank(best) ? t : best), undefined);
  }

  private isConnected(agentId: string, token: StoredToken): boolean {
    return this.store.connections.find((c) => c.agent_id === agentId && c.oauth_token_id === token.id) !== undefined;
  }

  private isExpired(token: StoredToken): boolean {
    return token.expires_at !== null && token.expires_at <= this.ctx.clock.now();
  }

  /** RFC 6749 §6 at the provider's token endpoint; undefined when there is no refresh token or it is refused. */
  private async refresh(provider: StoredProvider, token: StoredToken, base: string, fetcher: TokenEndpointFetch): Promise<StoredToken | undefined> {
    if (token.refresh_token === null) return undefined;
    const outcome = await requestToken(tokenClient(provider, base), { grant_type: "refresh_token", refresh_token: token.refresh_token }, fetcher);
    const current = this.store.tokens.get(token.id);
    if (!outcome.ok || !current) return undefined;
    const { grant } = outcome;
    return this.store.tokens.set(current.id, {
      ...current,
      access_token: grant.access_token,
      refresh_token: grant.refresh_token ?? current.refresh_token,
      expires_at: this.expiry(grant),
      scopes: grant.scope !== null ? splitScopes(grant.scope) : current.scopes,
      updated_at: this.ctx.clock.now(),
    });
  }

  private startFlow(provider: StoredProvider, userId: string, agentId: string | null, scopes: string[], isDefault: boolean, replaces: string | null, scope: RequestScope): AuthFlow {
    const authId = this.ctx.random.uuid4();
    return this.store.flows.set(authId, {
      auth_id: authId,
      organization_id: provider.organization_id,
      provider_id: provider.provider_id,
      user_id: userId,
      agent_id: agentId,
      scopes: [...scopes],
      // RFC 7636 §4.1: 43–128 unreserved characters; hex is a subset.
      code_verifier: provider.uses_pkce ? this.ctx.random.hex(64) : null,
      // wellFormed: a record that slipped past the routes' checks must not make encodeURIComponent throw.
      redirect_uri: `${scope.baseUrl}/v2/auth/callback/${encodeURIComponent(wellFormed(provider.provider_id))}`,
      is_default: isDefault,
      replaces,
      status: "pending",
      token_id: null,
      expires_at: instantAfterClamped(this.ctx.clock.now(), AUTH_FLOW_TTL_MS),
    });
  }

  private pendingFlow(state: string): AuthFlow | undefined {
    const flow = this.store.flows.get(state);
    return flow && flow.status === "pending" && flow.expires_at > this.ctx.clock.now() ? flow : undefined;
  }

  /** Stores the grant as the flow's token: a renewal overwrites the token it replaces, keeping its id and label. */
  private saveToken(flow: AuthFlow, grant: TokenGrant): StoredToken {
    const now = this.ctx.clock.now();
    const replaced = flow.replaces ? this.store.tokens.get(flow.replaces) : undefined;
    const id = replaced?.id ?? this.ctx.random.uuid4();
    if (flow.is_default) this.store.unsetOtherDefaults({ ...flow, id }, now);
    return this.store.tokens.set(id, {
      id,
      organization_id: flow.organization_id,
      user_id: flow.user_id,
      provider_id: flow.provider_id,
      scopes: grant.scope !== null ? splitScopes(grant.scope) : [...flow.scopes],
      access_token: grant.access_token,
      refresh_token: grant.refresh_token,
      expires_at: this.expiry(grant),
      provider_account_label: replaced?.provider_account_label ?? null,
      is_default: flow.is_default || (replaced?.is_default ?? false),
      created_at: replaced?.created_at ?? now,
      updated_at: now,
    });
  }

  private expiry(grant: TokenGrant): number | null {
    return grant.expires_in === null ? null : instantAfterClamped(this.ctx.clock.now(), grant.expires_in * 1000);
  }

  private async sleepUntilWoken(authId: string, ms: number, signal: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const set = this.waiters.get(authId) ?? new Set();
    set.add(wake);
    this.waiters.set(authId, set);
    try {
      await Promise.race([woken, this.ctx.clock.sleep(ms, stop.signal).catch(() => undefined)]);
    } finally {
      stop.abort();
      signal.removeEventListener("abort", onAbort);
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(authId) === set) this.waiters.delete(authId);
    }
  }

  private wake(authId: string): void {
    for (const wake of this.waiters.get(authId) ?? []) wake();
  }
}

/** The provider's authorization URL for a flow (RFC 6749 §4.1.1, RFC 7636 §4.3), keeping the URL's own query. */
export function authorizationUrl(provider: StoredProvider, flow: AuthFlow, base: string): string {
  const authUrl = onOrigin(provider.auth_url, base);
  if (!URL.canParse(authUrl)) throw controlPlaneErrors.providerUrlInvalid(provider.provider_id, "auth_url", provider.auth_url);
  const url = new URL(authUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.client_id);
  url.searchParams.set("redirect_uri", flow.redirect_uri);
  if (flow.scopes.length) url.searchParams.set("scope", flow.scopes.join(" "));
  url.searchParams.set("state", flow.auth_id);
  if (flow.code_verifier) {
    const method = provider.code_challenge_method === "plain" ? "plain" : "S256";
    url.searchParams.set("code_challenge", method === "S256" ? createHash("sha256").update(flow.code_verifier).digest("base64url") : flow.code_verifier);
    url.searchParams.set("code_challenge_method", method);
  }
  return url.href;
}

/**
 * A provider URL written as a path (`/_fixtures/mcp/<slug>/token`) is on the mock's own origin: fixture
 * files cannot know the port a test server will listen on.
 */
function onOrigin(url: string, base: string): string {
  return url.startsWith("/") && !url.startsWith("//") ? new URL(url, base).href : url;
}

function tokenClient(provider: StoredProvider, base: string): TokenClient {
  return { ...provider, token_url: onOrigin(provider.token_url, base) };
}

function tokenMetadata(token: StoredToken): Record<string, unknown> {
  return { token_id: token.id, provider_id: token.provider_id, scopes: token.scopes, expires_at: token.expires_at === null ? null : formatTimestamp(token.expires_at) };
}

function splitScopes(scope: string): string[] {
  return scope.split(" ").filter(Boolean);
}
