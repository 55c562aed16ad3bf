import request from "supertest";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp, LoadError, mockOf, type FixtureDocument } from "../../src/index.js";

const BASE = "http://mock.test";

/**
 * The agent-auth routes through supertest. With Host: mock.test the mock's origin is one no socket
 * serves, so the token requests to the fixture OAuth servers are answered in-process (auth-token-exchange.ts).
 */
describe("agent auth", () => {
  const app = createApp({ seed: 5 });
  const mock = mockOf(app);
  const call = (method: "get" | "post" | "patch" | "delete", path: string) => request(app)[method](path).set("Host", "mock.test");

  /** Follows the authorization URL like a browser: the fixture server's redirect, then the callback. */
  const approve = async (url: string) => {
    const authorize = await call("get", new URL(url).pathname + new URL(url).search).expect(302);
    const back = new URL(authorize.headers.location as string);
    expect(back.origin + back.pathname).toMatch(/^http:\/\/mock\.test\/v2\/auth\/callback\//);
    return call("get", back.pathname + back.search).expect(200);
  };
  const connect = async (provider: string, scopes: string[] = ["repo"], extra: object = {}) => {
    const started = await call("post", "/v2/auth/authenticate").send({ provider, scopes, force_new: true, ...extra }).expect(200);
    const done = await approve(started.body.url);
    return { authId: started.body.auth_id as string, tokenId: done.body.token_id as string };
  };

  beforeAll(async () => {
    await call("post", "/v2/auth/providers/mcp-discover").send({ provider_id: "gh", name: "GH", mcp_server_url: `${BASE}/_fixtures/mcp/github-tools/mcp` }).expect(200);
    await call("post", "/v2/auth/providers/mcp-discover").send({ provider_id: "lin", name: "Linear", mcp_server_url: `${BASE}/_fixtures/mcp/linear-tools/mcp` }).expect(200);
  });
  let start: number;
  beforeEach(() => {
    start = mock.clock.now().getTime();
  });

  describe("authenticate", () => {
    it("an unknown provider is a 404", async () => {
      await call("post", "/v2/auth/authenticate").send({ provider: "nope", scopes: [] }).expect(404, { detail: "OAuth provider 'nope' not found." });
    });

    it("a body without scopes is FastAPI's 422", async () => {
      const res = await call("post", "/v2/auth/authenticate").send({ provider: "gh" }).expect(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "missing", loc: ["body", "scopes"] })]);
    });

    it("answers pending with the provider's authorization URL for the user it names", async () => {
      const res = await call("post", "/v2/auth/authenticate").send({ provider: "lin", scopes: ["read", "write"], user_id: "end-user-1" }).expect(200);
      expect(res.body).toEqual({ status: "pending", url: expect.stringMatching(/^http:\/\/mock\.test\/_fixtures\/mcp\/linear-tools\/authorize\?/), auth_id: expect.any(String), token: null, user_id: "end-user-1", metadata: null });
      expect(new URL(res.body.url).searchParams.get("scope")).toBe("read write");
      // Not the API key's user: the token routes do not show it.
      await approve(res.body.url);
      expect((await call("get", "/v2/auth/tokens?provider_id=lin").expect(200)).body).toEqual([]);
      const again = await call("post", "/v2/auth/authenticate").send({ provider: "lin", scopes: ["read"], user_id: "end-user-1" }).expect(200);
      expect(again.body.status).toBe("completed");
    });

    it("a token without every requested scope starts a new authorization", async () => {
      await connect("gh", ["repo"]);
      const res = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo", "read:org"] }).expect(200);
      expect(res.body.status).toBe("pending");
    });

    it("a token that expired and cannot be refreshed answers token_expired with a new authorization", async () => {
      const { tokenId } = await connect("gh", ["repo"]);
      mock.clock.advance("31d"); // past the fixture servers' refresh-token lifetime
      const res = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], token_id: tokenId }).expect(200);
      expect(res.body).toMatchObject({ status: "token_expired", url: expect.any(String), auth_id: expect.any(String), token: null });
      // Completing it renews the same token (same id).
      expect((await approve(res.body.url)).body.token_id).toBe(tokenId);
    });

    it("a token_id of another provider is a 404", async () => {
      const { tokenId } = await connect("gh");
      await call("post", "/v2/auth/authenticate").send({ provider: "lin", scopes: [], token_id: tokenId }).expect(404, { detail: `OAuth token '${tokenId}' not found.` });
    });
  });

  describe("callback and setup", () => {
    it("an unknown or reused state is a 400, and so is a callback without state", async () => {
      await call("get", "/v2/auth/callback/gh?code=abc&state=nope").expect(400, { detail: "Invalid or expired OAuth state." });
      await call("get", "/v2/auth/callback/gh?code=abc").expect(400, { detail: "Missing authorization code or state." });
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      const authorize = await call("get", new URL(started.body.url).pathname + new URL(started.body.url).search).expect(302);
      const back = new URL(authorize.headers.location as string);
      await call("get", `/v2/auth/callback/lin${back.search}`).expect(400, { detail: "Invalid or expired OAuth state." });
      await call("get", back.pathname + back.search).expect(200);
      await call("get", back.pathname + back.search).expect(400, { detail: "Invalid or expired OAuth state." });
    });

    it("the provider's error ends the flow; wait then times out on the mock clock", async () => {
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      await call("get", `/v2/auth/callback/gh?state=${started.body.auth_id}&error=access_denied&error_description=User%20said%20no`).expect(400, {
        detail: "OAuth provider returned an error: access_denied (User said no)",
      });
      const before = mock.clock.now().getTime();
      await call("get", `/v2/auth/wait/${started.body.auth_id}?timeout=7`).expect(200, { status: "timeout", token: null });
      // The seeded clock jumped over the wait (virtual time): nothing slept for real.
      expect(mock.clock.now().getTime() - before).toBe(7000);
    });

    it("a code the token endpoint refuses is a 400 naming the endpoint and the OAuth error", async () => {
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      const res = await call("get", `/v2/auth/callback/gh?state=${started.body.auth_id}&code=forged`).expect(400);
      expect(res.body.detail).toBe("Token exchange at http://mock.test/_fixtures/mcp/github-tools/token failed: HTTP 400, invalid_grant: The authorization code is invalid or expired.");
    });

    it("a token_url on a host the outbound policy does not allow is never fetched", async () => {
      await call("post", "/v2/auth/providers")
        .send({ provider_id: "ext", name: "External", client_id: "c", auth_url: "https://example.com/authorize", token_url: "https://example.com/token" })
        .expect(200);
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "ext", scopes: [] }).expect(200);
      expect(started.body.url).toMatch(/^https:\/\/example\.com\/authorize\?response_type=code&client_id=c&redirect_uri=http%3A%2F%2Fmock\.test%2Fv2%2Fauth%2Fcallback%2Fext&state=/);
      await call("get", `/v2/auth/callback/ext?state=${started.body.auth_id}&code=x`).expect(400, {
        detail: "Token exchange at https://example.com/token failed: the host example.com is not allowed for outbound requests (allow it with --allow-outbound-host example.com)",
      });
    });

    it("a flow expires after ten minutes on the mock clock", async () => {
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      mock.clock.advance("10m");
      await call("get", `/v2/auth/callback/gh?state=${started.body.auth_id}&code=x`).expect(400, { detail: "Invalid or expired OAuth state." });
      await call("get", `/v2/auth/wait/${started.body.auth_id}`).expect(200, { status: "not_found", token: null });
    });

    it("POST callback finalizes a flow from code and state (the frontend bridge)", async () => {
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      const authorize = await call("get", new URL(started.body.url).pathname + new URL(started.body.url).search).expect(302);
      const back = new URL(authorize.headers.location as string).searchParams;
      const res = await call("post", "/v2/auth/callback/gh").send({ code: back.get("code"), state: back.get("state") }).expect(200);
      expect(res.body).toMatchObject({ status: "completed", provider_id: "gh", auth_id: started.body.auth_id });
      await call("post", "/v2/auth/callback/gh").send({ code: "x" }).expect(422);
    });

    it("the GitHub App setup URL: an update needs no exchange, a new installation finishes a flow", async () => {
      await call("get", "/v2/auth/setup/gh?setup_action=update&installation_id=42").expect(200, { status: "updated", provider_id: "gh", auth_id: null, token_id: null });
      await call("get", "/v2/auth/setup/nope?setup_action=update").expect(404);
      await call("get", "/v2/auth/setup/gh?installation_id=x").expect(422);
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      const authorize = await call("get", new URL(started.body.url).pathname + new URL(started.body.url).search).expect(302);
      const res = await call("get", `/v2/auth/setup/gh${new URL(authorize.headers.location as string).search}&setup_action=install&installation_id=42`).expect(200);
      expect(res.body.status).toBe("completed");
    });

    it("the callback and the setup URL need no API key; authenticate does", async () => {
      const keyed = createApp({ seed: 5, apiKey: "k" });
      await request(keyed).get("/v2/auth/callback/gh?code=a&state=b").expect(400);
      await request(keyed).get("/v2/auth/setup/gh?setup_action=update").expect(404);
      await request(keyed).post("/v2/auth/authenticate").send({ provider: "gh", scopes: [] }).expect(401, { detail: "Invalid token" });
      await request(keyed).post("/v2/auth/callback/gh").send({ code: "a", state: "b" }).expect(401);
    });
  });

  describe("wait", () => {
    it("an unknown auth_id is not_found; timeout=0 answers pending at once", async () => {
      await call("get", "/v2/auth/wait/nope").expect(200, { status: "not_found", token: null });
      const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"], force_new: true }).expect(200);
      await call("get", `/v2/auth/wait/${started.body.auth_id}?timeout=0`).expect(200, { status: "pending", token: null });
      expect(mock.clock.now().getTime()).toBe(start);
      await call("get", `/v2/auth/wait/${started.body.auth_id}?timeout=soon`).expect(422);
      // A huge timeout is capped at 300 s of mock time.
      await call("get", `/v2/auth/wait/${started.body.auth_id}?timeout=100000000`).expect(200, { status: "timeout", token: null });
      expect(mock.clock.now().getTime() - start).toBe(300_000);
    });
  });

  describe("tokens", () => {
    it("label, default, exists, delete one and delete all of a provider", async () => {
      await call("delete", "/v2/auth/tokens?provider_id=gh").expect(200);
      await call("get", "/v2/auth/tokens/exists?provider_id=gh").expect(200, { has_token: false });
      const a = await connect("gh");
      const b = await connect("gh", ["repo"], { force_new: true });
      const listed = (await call("get", "/v2/auth/tokens?provider_id=gh").expect(200)).body;
      // The newer authorization became the default.
      expect(listed.map((t: { id: string; is_default: boolean }) => [t.id, t.is_default])).toEqual([
        [a.tokenId, false],
        [b.tokenId, true],
      ]);
      await call("get", "/v2/auth/tokens/exists?provider_id=gh").expect(200, { has_token: true });

      const labelled = await call("patch", `/v2/auth/tokens/${a.tokenId}/metadata`).send({ provider_account_label: "work", is_default: true }).expect(200);
      expect(labelled.body).toMatchObject({ id: a.tokenId, provider_account_label: "work", is_default: true, scopes: ["repo"] });
      expect((await call("get", "/v2/auth/tokens?provider_id=gh")).body.find((t: { id: string }) => t.id === b.tokenId).is_default).toBe(false);
      await call("patch", "/v2/auth/tokens/nope/metadata").send({}).expect(404, { detail: "OAuth token 'nope' not found." });

      await call("delete", `/v2/auth/tokens/${a.tokenId}`).expect(204);
      await call("delete", `/v2/auth/tokens/${a.tokenId}`).expect(404);
      await call("delete", "/v2/auth/tokens?provider_id=gh").expect(200, { deleted: 1 });
      await call("get", "/v2/auth/tokens/exists?provider_id=gh").expect(200, { has_token: false });
      await call("delete", "/v2/auth/tokens").expect(422);
      await call("get", "/v2/auth/tokens/exists").expect(422);
    });

    it("Slack workspace tokens: exists and revoke all, for every user", async () => {
      // A Slack provider played by a fixture OAuth server.
      const reg = await call("post", "/_fixtures/mcp/linear-tools/register").send({ redirect_uris: [`${BASE}/v2/auth/callback/slack-app`], token_endpoint_auth_method: "client_secret_post" }).expect(201);
      await call("post", "/v2/auth/providers")
        .send({
          provider_id: "slack-app",
          name: "Slack",
          provider_type: "slack",
          client_id: reg.body.client_id,
          client_secret: reg.body.client_secret,
          auth_url: `${BASE}/_fixtures/mcp/linear-tools/authorize`,
          token_url: `${BASE}/_fixtures/mcp/linear-tools/token`,
          uses_pkce: true,
        })
        .expect(200);
      await call("get", "/v2/auth/tokens/workspace/slack/exists").expect(200, { has_token: false });
      await connect("slack-app", ["read"]);
      await connect("slack-app", ["read"], { user_id: "someone-else" });
      await call("get", "/v2/auth/tokens/workspace/slack/exists").expect(200, { has_token: true });
      await call("delete", "/v2/auth/tokens/workspace/slack").expect(200, { deleted: 2 });
      await call("get", "/v2/auth/tokens/workspace/slack/exists").expect(200, { has_token: false });
    });
  });

  describe("agent connections", () => {
    it("create, list, replace per provider, remove", async () => {
      const a = await connect("gh");
      const b = await connect("gh", ["repo"], { force_new: true });
      await call("get", "/v2/auth/agents/bot/connections").expect(200, { data: [] });
      const created = await call("post", "/v2/auth/agents/bot/connections").send({ oauth_token_id: a.tokenId }).expect(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        agent_id: "bot",
        oauth_token_id: a.tokenId,
        provider_id: "gh",
        provider_account_label: null,
        scopes: ["repo"],
        expires_at: expect.any(String),
        created_by: "00000000-0000-4000-8000-000000000003",
        created_at: expect.any(String),
      });
      // One connection per agent and provider: connecting b replaces a.
      const replaced = await call("post", "/v2/auth/agents/bot/connections").send({ oauth_token_id: b.tokenId }).expect(201);
      expect((await call("get", "/v2/auth/agents/bot/connections")).body.data.map((c: { id: string }) => c.id)).toEqual([replaced.body.id]);
      await call("post", "/v2/auth/agents/bot/connections").send({ oauth_token_id: "nope" }).expect(404);
      await call("post", "/v2/auth/agents/bot/connections").send({}).expect(422);
      await call("delete", `/v2/auth/agents/other/connections/${replaced.body.id}`).expect(404, { detail: `Connection '${replaced.body.id}' not found.` });
      await call("delete", `/v2/auth/agents/bot/connections/${replaced.body.id}`).expect(204);
      await call("get", "/v2/auth/agents/bot/connections").expect(200, { data: [] });
    });

    it("deleting a token removes its connections", async () => {
      const a = await connect("gh", ["repo"], { agent_id: "helper" });
      expect((await call("get", "/v2/auth/agents/helper/connections")).body.data).toHaveLength(1);
      await call("delete", `/v2/auth/tokens/${a.tokenId}`).expect(204);
      await call("get", "/v2/auth/agents/helper/connections").expect(200, { data: [] });
    });
  });

  it("reset forgets tokens and flows", async () => {
    const { authId } = await connect("gh", ["repo"], { force_new: true });
    mock.reset();
    await call("get", `/v2/auth/wait/${authId}`).expect(200, { status: "not_found", token: null });
    await call("get", "/v2/auth/tokens").expect(200, []);
  });
});

describe("clients of the mcp_servers fixtures", () => {
  it("are refused with file, pointer and reason when malformed or duplicated", () => {
    let error: unknown;
    try {
      // Wrong on purpose (a bad redirect URI, a missing one): the cast gets it past the fixture type.
      createApp({
        seed: 1,
        fixtures: {
          mcp_servers: [
            { slug: "a", clients: [{ client_id: "x", redirect_uris: ["ftp://nope"] }, { client_id: "y" }] },
            { slug: "b", clients: [{ client_id: "z", redirect_uris: ["/v2/auth/callback/b"] }, { client_id: "z", redirect_uris: ["/cb"] }] },
          ],
        } as unknown as FixtureDocument,
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LoadError);
    const at = "<fixtures object 1>";
    expect((error as LoadError).problems).toEqual([
      { file: at, pointer: "/mcp_servers/0/clients/0/redirect_uris/0", reason: 'must match pattern "^(/|https?://)"; got "ftp://nope"' },
      { file: at, pointer: "/mcp_servers/0/clients/1/redirect_uris", reason: "required property is missing" },
      { file: at, pointer: "/mcp_servers/1/clients/1/client_id", reason: 'duplicate client_id "z"' },
    ]);
  });

  it("a redirect URI written as a path is accepted on the mock's own origin only", async () => {
    const app = createApp({ seed: 1, fixtures: { mcp_servers: [{ slug: "s", code_challenge_methods: [], clients: [{ client_id: "c", redirect_uris: ["/v2/auth/callback/p"] }] }] } });
    const authorize = (redirect: string) => request(app).get(`/_fixtures/mcp/s/authorize?response_type=code&client_id=c&redirect_uri=${encodeURIComponent(redirect)}`).set("Host", "mock.test");
    const ok = await authorize("http://mock.test/v2/auth/callback/p").expect(302);
    expect(ok.headers.location).toMatch(/^http:\/\/mock\.test\/v2\/auth\/callback\/p\?code=/);
    await authorize("http://elsewhere.test/v2/auth/callback/p").expect(400);
  });
});
