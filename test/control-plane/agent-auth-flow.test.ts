import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type FixtureDocument, type MockServer } from "../../src/index.js";

/**
 * The agent-auth flow end to end over real HTTP, as an application and its user's browser drive it:
 * authenticate → follow the authorization URL (the fixture OAuth server approves at once and redirects)
 * → the mock's callback exchanges the code at the provider's token endpoint → wait returns the token →
 * the token opens the provider's MCP endpoint. Redirects are followed by hand, like a browser.
 */
describe("the agent-auth flow over HTTP", () => {
  let mock: MockServer;
  beforeAll(async () => {
    // Waits do not move the clock by themselves: a pending wait stays pending until its flow completes.
    // The journal keeps credentials in clear so the test can see how the client authenticated.
    mock = await startMockServer({ port: 0, seed: 11, clock: { autoAdvance: false }, journal: { showSecrets: true } });
  });
  afterAll(() => mock.close());

  type Json = any; // response bodies are read as loose JSON
  const json = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${mock.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
  };

  /** Follows redirects from `url` as a browser does (no API key), returning each hop and the last answer. */
  const browse = async (url: string): Promise<{ hops: string[]; status: number; body: Json }> => {
    const hops: string[] = [];
    let next = url;
    for (;;) {
      hops.push(next);
      const res = await fetch(next, { redirect: "manual" });
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        next = new URL(location, next).href;
        continue;
      }
      return { hops, status: res.status, body: await res.json() };
    }
  };

  /** Calls the fixture server's MCP endpoint with a bearer token. */
  const mcpPing = async (slug: string, token: string) =>
    (
      await fetch(`${mock.url}/_fixtures/mcp/${slug}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      })
    ).status;

  it("completes against a provider created by MCP discovery (public PKCE client)", async () => {
    const discovered = await json("POST", "/v2/auth/providers/mcp-discover", {
      provider_id: "github-tools",
      name: "GitHub Tools",
      mcp_server_url: `${mock.url}/_fixtures/mcp/github-tools/mcp`,
    });
    expect(discovered.status).toBe(200);

    const started = await json("POST", "/v2/auth/authenticate", { provider: "github-tools", scopes: ["repo"] });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: "pending", token: null, auth_id: expect.any(String), url: expect.stringMatching(`^${mock.url}/_fixtures/mcp/github-tools/authorize\\?`) });
    const url = new URL(started.body.url);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: "code",
      client_id: discovered.body.client_id,
      redirect_uri: `${mock.url}/v2/auth/callback/github-tools`,
      scope: "repo",
      state: started.body.auth_id,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: "S256",
    });

    // Not yet: the user has not opened the URL.
    expect((await json("GET", `/v2/auth/wait/${started.body.auth_id}?timeout=0`)).body).toEqual({ status: "pending", token: null });

    const browser = await browse(started.body.url);
    expect(browser.hops).toEqual([started.body.url, expect.stringMatching(`^${mock.url}/v2/auth/callback/github-tools\\?code=[0-9a-f]+&state=${started.body.auth_id}$`)]);
    expect(browser.status).toBe(200);
    expect(browser.body).toEqual({ status: "completed", provider_id: "github-tools", auth_id: started.body.auth_id, token_id: expect.any(String) });

    const waited = await json("GET", `/v2/auth/wait/${started.body.auth_id}`);
    expect(waited.body).toEqual({ status: "completed", token: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(await mcpPing("github-tools", waited.body.token)).toBe(200);

    // The code went to the provider's token endpoint over HTTP: it is in the request journal.
    const token = mock.requests({ path: "/_fixtures/mcp/github-tools/token" });
    expect(token.map((r) => r.status)).toEqual([200]);
    expect(token[0]?.body).toMatchObject({ grant_type: "authorization_code", client_id: discovered.body.client_id, code_verifier: expect.any(String) });

    // Asked again, the token is handed back at once.
    const again = await json("POST", "/v2/auth/authenticate", { provider: "github-tools", scopes: ["repo"] });
    expect(again.body).toMatchObject({ status: "completed", token: waited.body.token, url: null, auth_id: null });
    const tokens = await json("GET", "/v2/auth/tokens?provider_id=github-tools");
    expect(tokens.body).toEqual([
      {
        id: browser.body.token_id,
        provider_id: "github-tools",
        provider_account_label: null,
        scopes: ["repo"],
        expires_at: expect.any(String),
        is_default: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });

  it("completes against a manually configured provider at a fixture OAuth server (confidential client, client_secret_basic)", async () => {
    // The developer registers an app at the provider, then enters its credentials into the platform.
    const registered = await json("POST", "/_fixtures/mcp/confidential-tools/register", {
      client_name: "My app",
      redirect_uris: [`${mock.url}/v2/auth/callback/conf-app`],
      token_endpoint_auth_method: "client_secret_basic",
    });
    expect(registered.status).toBe(201);
    const created = await json("POST", "/v2/auth/providers", {
      provider_id: "conf-app",
      name: "Confidential app",
      client_id: registered.body.client_id,
      client_secret: registered.body.client_secret,
      auth_url: `${mock.url}/_fixtures/mcp/confidential-tools/authorize`,
      token_url: `${mock.url}/_fixtures/mcp/confidential-tools/token`,
      token_endpoint_auth_method: "client_secret_basic",
    });
    expect(created.status).toBe(200);

    const started = await json("POST", "/v2/auth/authenticate", { provider: "conf-app", scopes: ["read"], agent_id: "agent-1" });
    expect(started.body.status).toBe("pending");
    expect(new URL(started.body.url).searchParams.has("code_challenge")).toBe(false);

    // wait is already listening when the browser completes the flow; the callback wakes it.
    const waiting = json("GET", `/v2/auth/wait/${started.body.auth_id}?timeout=30`);
    const browser = await browse(started.body.url);
    expect(browser.body.status).toBe("completed");
    const waited = await waiting;
    expect(waited.body).toEqual({ status: "completed", token: expect.any(String) });
    expect(await mcpPing("confidential-tools", waited.body.token)).toBe(200);

    const exchange = mock.requests({ path: "/_fixtures/mcp/confidential-tools/token" })[0];
    expect(exchange?.headers.authorization).toMatch(/^Basic /);
    expect(exchange?.body).not.toHaveProperty("client_secret");

    // The flow named an agent: its token is connected to it.
    const connections = await json("GET", "/v2/auth/agents/agent-1/connections");
    expect(connections.body.data).toEqual([expect.objectContaining({ agent_id: "agent-1", oauth_token_id: browser.body.token_id, provider_id: "conf-app", scopes: ["read"] })]);
    expect((await json("POST", "/v2/auth/authenticate", { provider: "conf-app", scopes: ["read"], agent_id: "agent-1" })).body).toMatchObject({ status: "completed", token: waited.body.token });
    // Another agent of the same user must be connected first.
    expect((await json("POST", "/v2/auth/authenticate", { provider: "conf-app", scopes: ["read"], agent_id: "agent-2" })).body).toMatchObject({
      status: "connection_required",
      metadata: { token_id: browser.body.token_id, agent_id: "agent-2", provider_id: "conf-app" },
    });
  });

  it("an expired token is refreshed at the token endpoint on the mock clock", async () => {
    const started = await json("POST", "/v2/auth/authenticate", { provider: "github-tools", scopes: ["repo"], force_new: true, is_default: false });
    expect(started.body.status).toBe("pending");
    await browse(started.body.url);
    const first = (await json("GET", `/v2/auth/wait/${started.body.auth_id}`)).body.token;
    const before = mock.requests({ path: "/_fixtures/mcp/github-tools/token" }).length;

    mock.clock.advance("2h"); // the fixture servers' access tokens live one hour
    const refreshed = await json("POST", "/v2/auth/authenticate", { provider: "github-tools", scopes: ["repo"] });
    expect(refreshed.body.status).toBe("completed");
    expect(refreshed.body.token).not.toBe(first);
    expect(await mcpPing("github-tools", refreshed.body.token)).toBe(200);
    const calls = mock.requests({ path: "/_fixtures/mcp/github-tools/token" }).slice(before);
    expect(calls.map((r) => (r.body as { grant_type: string }).grant_type)).toEqual(["refresh_token"]);
  });
});

describe("the agent-auth flow against a fixture provider", () => {
  // A provider of the oauth_providers fixtures whose OAuth server is a fixture server with a client
  // registered in advance. Paths stand for the mock's own origin, whose port the fixtures cannot know.
  const fixtures: FixtureDocument = {
    mcp_servers: [
      {
        slug: "acme-sso",
        dynamic_registration: false,
        scopes: ["profile", "email"],
        clients: [{ client_id: "acme-app", client_secret: "s3cret", token_endpoint_auth_method: "client_secret_basic", redirect_uris: ["/v2/auth/callback/acme"] }],
      },
    ],
    oauth_providers: [
      {
        provider_id: "acme",
        name: "Acme SSO",
        client_id: "acme-app",
        client_secret: "s3cret",
        auth_url: "/_fixtures/mcp/acme-sso/authorize",
        token_url: "/_fixtures/mcp/acme-sso/token",
        uses_pkce: true,
        code_challenge_method: "S256",
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
  };
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 12, fixtures, journal: { showSecrets: true } });
  });
  afterAll(() => mock.close());

  it("authenticate → authorize → callback → wait, with PKCE and client_secret_basic", async () => {
    const post = (path: string, body: unknown) => fetch(`${mock.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const started = (await (await post("/v2/auth/authenticate", { provider: "acme", scopes: ["profile"] })).json()) as { url: string; auth_id: string };
    expect(started.url.startsWith(`${mock.url}/_fixtures/mcp/acme-sso/authorize?response_type=code&client_id=acme-app&redirect_uri=`)).toBe(true);

    // The browser: the fixture server approves and redirects to the callback, which answers.
    const authorize = await fetch(started.url, { redirect: "manual" });
    expect(authorize.status).toBe(302);
    const callback = new URL(authorize.headers.get("location") as string);
    expect(callback.origin + callback.pathname).toBe(`${mock.url}/v2/auth/callback/acme`);
    const done = await fetch(callback, { redirect: "manual" });
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ status: "completed", provider_id: "acme", auth_id: started.auth_id });

    const waited = await (await fetch(`${mock.url}/v2/auth/wait/${started.auth_id}`)).json();
    expect(waited).toEqual({ status: "completed", token: expect.any(String) });
    const exchange = mock.requests({ path: "/_fixtures/mcp/acme-sso/token" })[0];
    expect(exchange?.headers.authorization).toBe(`Basic ${Buffer.from("acme-app:s3cret").toString("base64")}`);
    expect(exchange?.body).toMatchObject({ grant_type: "authorization_code", code_verifier: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});
