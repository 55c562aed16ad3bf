import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import request from "supertest";
import { createApp, LoadError, mockOf, startMockServer, type FixtureDocument, type MockServer } from "../../src/index.js";
import { MAX_DOCUMENT_BYTES } from "../../src/control-plane/mcp-discovery.js";
import { closedAfterEach } from "../support/listening.js";

const START = "2026-01-15T09:00:00.000000+00:00";

/** A provider discovery body for the mock's own fixture server `slug` on origin `base`. */
function discover(providerId: string, base: string, slug: string) {
  return { provider_id: providerId, name: `${slug} provider`, mcp_server_url: `${base}/_fixtures/mcp/${slug}/mcp` };
}

describe("discovery against the mock's own fixture MCP servers (supertest, answered in-process)", () => {
  // With Host: mock.test the mock's origin is http://mock.test, which no socket of this process serves.
  const post = (app: ReturnType<typeof createApp>, body: object) => request(app).post("/v2/auth/providers/mcp-discover").set("Host", "mock.test").send(body);

  it("creates a dynamic PKCE client from the metadata and the registration", async () => {
    const app = createApp({ seed: 7 });
    const res = await post(app, discover("github-tools", "http://mock.test", "github-tools")).expect(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organization_id: "5e1d2c3b-7a8f-4e6d-9c0b-1a2b3c4d5e6f",
      provider_id: "github-tools",
      name: "github-tools provider",
      client_id: expect.stringMatching(/^github-tools-[0-9a-f]{24}$/),
      auth_url: "http://mock.test/_fixtures/mcp/github-tools/authorize",
      token_url: "http://mock.test/_fixtures/mcp/github-tools/token",
      uses_pkce: true,
      code_challenge_method: "S256",
      provider_type: null,
      mcp_server_url: "http://mock.test/_fixtures/mcp/github-tools/mcp",
      token_endpoint_auth_method: "none",
      is_dynamic_client: true,
      created_at: START,
      updated_at: START,
    });
    await request(app).get("/v2/auth/providers/github-tools").expect(200, res.body);
  });

  it("a publicUrl that does not lead back to the process is served in-process too", async () => {
    const app = createApp({ seed: 7, publicUrl: "http://mock.invalid:9999" });
    const res = await request(app).post("/v2/auth/providers/mcp-discover").send(discover("gt", "http://mock.invalid:9999", "github-tools")).expect(200);
    expect(res.body.auth_url).toBe("http://mock.invalid:9999/_fixtures/mcp/github-tools/authorize");
  });

  it("prefers S256 when the server offers several methods", async () => {
    const res = await post(createApp({ seed: 7 }), discover("linear", "http://mock.test", "linear-tools")).expect(200);
    expect(res.body).toMatchObject({ uses_pkce: true, code_challenge_method: "S256", token_endpoint_auth_method: "none" });
  });

  it("a server without PKCE gives a confidential client whose secret is never returned", async () => {
    const app = createApp({ seed: 7 });
    const res = await post(app, discover("conf", "http://mock.test", "confidential-tools")).expect(200);
    expect(res.body).toMatchObject({ uses_pkce: false, code_challenge_method: null, token_endpoint_auth_method: "client_secret_post", is_dynamic_client: true });
    const all = await request(app).get("/v2/auth/providers").expect(200);
    expect(all.text).not.toMatch(/"client_secret"/);
  });

  it("a server without dynamic registration fails at that step, naming the metadata URL", async () => {
    await post(createApp({ seed: 7 }), discover("static", "http://mock.test", "static-client-tools")).expect(400, {
      detail:
        "MCP discovery failed at dynamic client registration (http://mock.test/.well-known/oauth-authorization-server/_fixtures/mcp/static-client-tools): the authorization server offers no registration_endpoint, so no client can be registered",
    });
  });

  it("a fixture's fail_at makes that step fail", async () => {
    await post(createApp({ seed: 7 }), discover("flaky", "http://mock.test", "flaky-tools")).expect(400, {
      detail: "MCP discovery failed at authorization server metadata (http://mock.test/.well-known/oauth-authorization-server/_fixtures/mcp/flaky-tools): HTTP 503",
    });
  });

  it("an unknown fixture server fails at the first step after trying both well-known URLs", async () => {
    await post(createApp({ seed: 7 }), discover("nope", "http://mock.test", "nope")).expect(400, {
      detail:
        "MCP discovery failed at protected resource metadata (http://mock.test/.well-known/oauth-protected-resource): HTTP 404 (also tried http://mock.test/.well-known/oauth-protected-resource/_fixtures/mcp/nope/mcp: HTTP 404)",
    });
  });

  it("checks the body and the slug before any network request", async () => {
    const app = createApp({ seed: 7 });
    const res = await post(app, { provider_id: "x" }).expect(422);
    expect(res.body.detail.map((d: { type: string; loc: string[] }) => [d.type, d.loc.join(".")])).toEqual([
      ["missing", "body.name"],
      ["missing", "body.mcp_server_url"],
    ]);
    await post(app, { provider_id: "slack-workspace", name: "x", mcp_server_url: "http://127.0.0.1:9/mcp" }).expect(409, {
      detail: "OAuth provider with provider_id 'slack-workspace' already exists.",
    });
    await post(app, { provider_id: "bad", name: "x", mcp_server_url: "ftp://example.com/mcp" }).expect(400, {
      detail: "MCP discovery failed at protected resource metadata (ftp://example.com/mcp): not an absolute http(s) URL",
    });
  });

  it("the same seed and requests give byte-identical answers", async () => {
    const run = async () => {
      const app = createApp({ seed: 21 });
      const a = await post(app, discover("one", "http://mock.test", "github-tools"));
      const b = await post(app, discover("two", "http://mock.test", "linear-tools"));
      return [a.text, b.text, (await request(app).get("/v2/auth/providers")).text];
    };
    expect(await run()).toEqual(await run());
  });
});

describe("the fixture MCP servers' own endpoints", () => {
  const app = () => createApp({ seed: 7, apiKey: "secret-key" });
  const host = (r: request.Test) => r.set("Host", "mock.test");

  it("serve RFC 9728 and RFC 8414 metadata without the API key", async () => {
    const a = app();
    await host(request(a).get("/.well-known/oauth-protected-resource/_fixtures/mcp/github-tools/mcp")).expect(200, {
      resource: "http://mock.test/_fixtures/mcp/github-tools/mcp",
      authorization_servers: ["http://mock.test/_fixtures/mcp/github-tools"],
      scopes_supported: ["repo", "read:org"],
      bearer_methods_supported: ["header"],
      resource_name: "GitHub Tools",
    });
    await host(request(a).get("/.well-known/oauth-authorization-server/_fixtures/mcp/github-tools")).expect(200, {
      issuer: "http://mock.test/_fixtures/mcp/github-tools",
      authorization_endpoint: "http://mock.test/_fixtures/mcp/github-tools/authorize",
      token_endpoint: "http://mock.test/_fixtures/mcp/github-tools/token",
      registration_endpoint: "http://mock.test/_fixtures/mcp/github-tools/register",
      scopes_supported: ["repo", "read:org"],
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      code_challenge_methods_supported: ["S256"],
    });
    await host(request(a).get("/.well-known/oauth-protected-resource/_fixtures/mcp/nope/mcp")).expect(404, { detail: "Not Found" });
    await host(request(a).get("/_fixtures/mcp/github-tools/register")).expect(405, { detail: "Method Not Allowed" });
  });

  it("run the authorization-code flow with PKCE up to an authorized MCP call", async () => {
    const a = app();
    const redirect = "http://localhost:3000/callback";
    const reg = await host(request(a).post("/_fixtures/mcp/github-tools/register"))
      .send({ client_name: "my app", redirect_uris: [redirect], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] })
      .expect(201);
    expect(reg.headers["cache-control"]).toBe("no-store");
    expect(reg.body).toEqual({
      client_id: expect.stringMatching(/^github-tools-[0-9a-f]{24}$/),
      client_id_issued_at: Date.parse("2026-01-15T09:00:00Z") / 1000,
      client_name: "my app",
      redirect_uris: [redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    const clientId = reg.body.client_id as string;

    const mcp = () => host(request(a).post("/_fixtures/mcp/github-tools/mcp")).send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26" } });
    const challenge = await mcp().expect(401);
    expect(challenge.headers["www-authenticate"]).toBe(
      'Bearer error="invalid_token", resource_metadata="http://mock.test/.well-known/oauth-protected-resource/_fixtures/mcp/github-tools/mcp"',
    );

    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const s256 = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; // RFC 7636 appendix B
    const noPkce = await host(request(a).get("/_fixtures/mcp/github-tools/authorize")).query({ response_type: "code", client_id: clientId, redirect_uri: redirect, state: "s1" }).expect(302);
    expect(noPkce.headers.location).toBe(`${redirect}?error=invalid_request&error_description=code_challenge+is+required&state=s1`);
    const auth = await host(request(a).get("/_fixtures/mcp/github-tools/authorize"))
      .query({ response_type: "code", client_id: clientId, redirect_uri: redirect, state: "xyz", code_challenge: s256, code_challenge_method: "S256" })
      .expect(302);
    const location = new URL(auth.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirect);
    expect(location.searchParams.get("state")).toBe("xyz");
    const code = location.searchParams.get("code") as string;

    const token = (form: Record<string, string>) => host(request(a).post("/_fixtures/mcp/github-tools/token")).type("form").send(form);
    await token({ grant_type: "authorization_code", code, client_id: clientId, redirect_uri: redirect, code_verifier: "wrong" }).expect(400, {
      error: "invalid_grant",
      error_description: "PKCE verification failed.",
    });
    const issued = await token({ grant_type: "authorization_code", code, client_id: clientId, redirect_uri: redirect, code_verifier: verifier }).expect(200);
    expect(issued.body).toEqual({ access_token: expect.stringMatching(/^[0-9a-f]{40}$/), token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^[0-9a-f]{40}$/), scope: "repo read:org" });
    await token({ grant_type: "authorization_code", code, client_id: clientId, code_verifier: verifier }).expect(400); // codes are single-use

    await mcp()
      .set("Authorization", `Bearer ${issued.body.access_token}`)
      .expect(200, { jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-03-26", capabilities: {}, serverInfo: { name: "GitHub Tools", version: "1.0.0" } } });

    // Tokens live on the mock's clock.
    mockOf(a).clock.advance("2h");
    await mcp().set("Authorization", `Bearer ${issued.body.access_token}`).expect(401);
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token, client_id: clientId }).expect(200);
    await mcp().set("Authorization", `Bearer ${refreshed.body.access_token}`).expect(200);
  });

  it("refuse bad registrations and unknown clients with OAuth errors", async () => {
    const a = app();
    await host(request(a).post("/_fixtures/mcp/github-tools/register")).send({ client_name: "x" }).expect(400, {
      error: "invalid_redirect_uri",
      error_description: "redirect_uris must be a non-empty list of http(s) URLs.",
    });
    await host(request(a).post("/_fixtures/mcp/static-client-tools/register")).send({ redirect_uris: ["http://x/cb"] }).expect(404);
    await host(request(a).get("/_fixtures/mcp/github-tools/authorize")).query({ client_id: "nope" }).expect(400, { error: "invalid_client", error_description: 'Unknown client_id "nope".' });
    await host(request(a).post("/_fixtures/mcp/github-tools/token")).type("form").send({ grant_type: "password", client_id: "nope" }).expect(401);
  });
});

/** A tiny OAuth/MCP metadata server for discovery against a foreign origin. */
async function metadataServer(
  routes: Record<string, (body: unknown, base: string) => { status: number; body: unknown; raw?: boolean; headers?: Record<string, string>; hang?: boolean }>,
) {
  const seen: { method: string; path: string; body: unknown }[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : undefined;
    seen.push({ method: req.method as string, path: req.url as string, body });
    const route = routes[`${req.method} ${req.url}`];
    const answer = route ? route(body, base) : { status: 404, body: { error: "not_found" } };
    if ("hang" in answer && answer.hang) return;
    res.writeHead(answer.status, { "Content-Type": answer.raw ? "text/html" : "application/json", ...("headers" in answer ? answer.headers : {}) });
    res.end(answer.raw ? String(answer.body) : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  track(server);
  return { base, seen };
}

const track = closedAfterEach();

const ok = (body: unknown) => () => ({ status: 200, body });
const asMetadata = (base: string, extra: Record<string, unknown> = {}) => ({
  issuer: `${base}/auth`,
  authorization_endpoint: `${base}/auth/authorize`,
  token_endpoint: `${base}/auth/token`,
  registration_endpoint: `${base}/auth/register`,
  code_challenge_methods_supported: ["plain", "S256"],
  ...extra,
});

describe("discovery against a separate HTTP server", () => {
  const post = (body: object) => request(createApp({ seed: 7 })).post("/v2/auth/providers/mcp-discover").set("Host", "mock.test").send(body);

  it("follows RFC 9728, RFC 8414 and RFC 7591 with path-aware well-known URLs", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource/tenant/mcp": (_b, base) => ({ status: 200, body: { resource: `${base}/tenant/mcp`, authorization_servers: [`${base}/auth`], scopes_supported: ["files:read", "files:write"] } }),
      "GET /.well-known/oauth-authorization-server/auth": (_b, base) => ({ status: 200, body: asMetadata(base) }),
      "POST /auth/register": () => ({ status: 201, body: { client_id: "registered-123", token_endpoint_auth_method: "none" } }),
    });
    const res = await post({ provider_id: "files", name: "Files", mcp_server_url: `${srv.base}/tenant/mcp` }).expect(200);
    expect(res.body).toMatchObject({
      client_id: "registered-123",
      auth_url: `${srv.base}/auth/authorize`,
      token_url: `${srv.base}/auth/token`,
      uses_pkce: true,
      code_challenge_method: "S256",
      token_endpoint_auth_method: "none",
      is_dynamic_client: true,
      mcp_server_url: `${srv.base}/tenant/mcp`,
      provider_type: null,
    });
    expect(srv.seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /.well-known/oauth-protected-resource/tenant/mcp",
      "GET /.well-known/oauth-authorization-server/auth",
      "POST /auth/register",
    ]);
    expect(srv.seen[2]?.body).toEqual({
      client_name: "Files",
      redirect_uris: ["http://mock.test/v2/auth/callback/files"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "files:read files:write",
    });
  });

  it("stores nothing when the store is reset while discovery waits on the network (the request belongs to the test before)", async () => {
    const app = createApp({ seed: 7 });
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource/mcp": (_b, base) => ({ status: 200, body: { resource: `${base}/mcp`, authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": (_b, base) => ({ status: 200, body: asMetadata(base) }),
      "POST /auth/register": () => {
        mockOf(app).reset();
        return { status: 201, body: { client_id: "late", token_endpoint_auth_method: "none" } };
      },
    });
    const res = await request(app).post("/v2/auth/providers/mcp-discover").set("Host", "mock.test").send({ provider_id: "late", name: "Late", mcp_server_url: `${srv.base}/mcp` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ provider_id: "late", client_id: "late" });
    await request(app).get("/v2/auth/providers/late").set("Host", "mock.test").expect(404);
  });

  it("keeps the resource's query in the path-aware well-known URL (RFC 9728 §3.1)", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource/mcp?workspace=acme": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": (_b, base) => ({ status: 200, body: asMetadata(base) }),
      "POST /auth/register": () => ({ status: 201, body: { client_id: "q-1" } }),
    });
    await post({ provider_id: "query", name: "Query", mcp_server_url: `${srv.base}/mcp/?workspace=acme` }).expect(200);
    expect(srv.seen[0]?.path).toBe("/.well-known/oauth-protected-resource/mcp?workspace=acme");
  });

  it("falls back to the origin-level resource metadata and to OpenID discovery", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/openid-configuration": (_b, base) => ({ status: 200, body: asMetadata(base, { code_challenge_methods_supported: undefined }) }),
      "POST /auth/register": () => ({ status: 201, body: { client_id: "c-1", client_secret: "top-secret" } }),
    });
    const app = createApp({ seed: 7 });
    const res = await request(app).post("/v2/auth/providers/mcp-discover").send({ provider_id: "oidc", name: "OIDC", mcp_server_url: `${srv.base}/mcp` }).expect(200);
    expect(res.body).toMatchObject({ client_id: "c-1", uses_pkce: false, code_challenge_method: null, token_endpoint_auth_method: "client_secret_post" });
    expect(srv.seen.map((r) => r.path)).toEqual([
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/auth/register",
    ]);
    expect((await request(app).get("/v2/auth/providers")).text).not.toContain("top-secret");
  });

  it("an unreachable server fails at the first step", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await post({ provider_id: "down", name: "Down", mcp_server_url: `http://127.0.0.1:${port}/mcp` }).expect(400, {
      detail: `MCP discovery failed at protected resource metadata (http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp): the request failed (ECONNREFUSED)`,
    });
  });

  it("404 metadata names the last URL and the one tried before it", async () => {
    const srv = await metadataServer({});
    await post({ provider_id: "gone", name: "Gone", mcp_server_url: `${srv.base}/mcp` }).expect(400, {
      detail: `MCP discovery failed at protected resource metadata (${srv.base}/.well-known/oauth-protected-resource): HTTP 404 (also tried ${srv.base}/.well-known/oauth-protected-resource/mcp: HTTP 404)`,
    });
  });

  it("metadata that is not JSON fails at its step", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": () => ({ status: 200, body: "<html>login</html>", raw: true }),
    });
    await post({ provider_id: "html", name: "Html", mcp_server_url: srv.base }).expect(400, {
      detail: `MCP discovery failed at authorization server metadata (${srv.base}/.well-known/oauth-authorization-server): the response is not JSON`,
    });
  });

  it("a document larger than the limit fails at its step without being read to the end", async () => {
    const huge = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const chunk = " ".repeat(64 * 1024);
      // Endless: discovery must stop reading on its own.
      const write = () => {
        while (res.write(chunk));
        res.once("drain", write);
      };
      write();
    });
    await new Promise<void>((resolve) => huge.listen(0, "127.0.0.1", resolve));
    track(huge);
    const base = `http://127.0.0.1:${(huge.address() as AddressInfo).port}`;
    await post({ provider_id: "huge", name: "Huge", mcp_server_url: base }).expect(400, {
      detail: `MCP discovery failed at protected resource metadata (${base}/.well-known/oauth-protected-resource): the response is larger than ${MAX_DOCUMENT_BYTES} bytes`,
    });
  });

  it("a document missing a required member fails naming it", async () => {
    const srv = await metadataServer({ "GET /.well-known/oauth-protected-resource/mcp": ok({ resource: "x" }) });
    await post({ provider_id: "half", name: "Half", mcp_server_url: `${srv.base}/mcp` }).expect(400, {
      detail: `MCP discovery failed at protected resource metadata (${srv.base}/.well-known/oauth-protected-resource/mcp): invalid protected resource metadata document: /authorization_servers: required property is missing`,
    });
  });

  it("a server without registration_endpoint fails at registration", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": (_b, base) => ({ status: 200, body: asMetadata(base, { registration_endpoint: undefined }) }),
    });
    await post({ provider_id: "noreg", name: "NoReg", mcp_server_url: srv.base }).expect(400, {
      detail: `MCP discovery failed at dynamic client registration (${srv.base}/.well-known/oauth-authorization-server): the authorization server offers no registration_endpoint, so no client can be registered`,
    });
  });

  it("a lone surrogate in a member the provider would keep fails its step, unquoted, and stores nothing", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": (_b, base) => ({ status: 200, body: asMetadata(base) }),
      "POST /auth/register": () => ({ status: 201, body: { client_id: "id-\ud800", token_endpoint_auth_method: "none" } }),
    });
    const app = createApp({ seed: 7, fixtures: false });
    await request(app).post("/v2/auth/providers/mcp-discover").set("Host", "mock.test").send({ provider_id: "lone", name: "Lone", mcp_server_url: srv.base }).expect(400, {
      detail: `MCP discovery failed at dynamic client registration (${srv.base}/auth/register): invalid dynamic client registration document: /client_id: not well-formed Unicode text (a lone surrogate)`,
    });
    await request(app).get("/v2/auth/providers").expect(200, []);
  });

  it("follows redirects, as fetch (and the MCP SDKs' HTTP clients) do", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource/mcp": (_b, base) => ({ status: 301, body: {}, headers: { Location: `${base}/moved/resource.json` } }),
      "GET /moved/resource.json": (_b, base) => ({ status: 200, body: { resource: `${base}/mcp`, authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": (_b, base) => ({ status: 200, body: asMetadata(base) }),
      "POST /auth/register": () => ({ status: 201, body: { client_id: "moved-1" } }),
    });
    const res = await post({ provider_id: "moved", name: "Moved", mcp_server_url: `${srv.base}/mcp` }).expect(200);
    expect(res.body.client_id).toBe("moved-1");
    expect(srv.seen.map((r) => r.path)).toEqual(["/.well-known/oauth-protected-resource/mcp", "/moved/resource.json", "/.well-known/oauth-authorization-server", "/auth/register"]);
  });

  it("a server that does not answer in time fails at its step", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": () => ({ status: 200, body: {}, hang: true }),
    });
    // The limit is 5 s of wall-clock time; the test shortens it for the hanging step rather than
    // waiting (the first step, which answers, keeps its 5 s, so a busy machine cannot fail it).
    const timeout = AbortSignal.timeout.bind(AbortSignal);
    const spy = vi.spyOn(AbortSignal, "timeout").mockImplementationOnce(timeout).mockImplementation(() => timeout(50));
    try {
      await post({ provider_id: "slow", name: "Slow", mcp_server_url: srv.base }).expect(400, {
        detail: `MCP discovery failed at authorization server metadata (${srv.base}/.well-known/oauth-authorization-server): no response within 5 s`,
      });
      expect(spy).toHaveBeenCalledWith(5000);
    } finally {
      spy.mockRestore();
    }
  });

  it("a refused registration fails at registration naming the endpoint", async () => {
    const srv = await metadataServer({
      "GET /.well-known/oauth-protected-resource": (_b, base) => ({ status: 200, body: { authorization_servers: [base] } }),
      "GET /.well-known/oauth-authorization-server": (_b, base) => ({ status: 200, body: asMetadata(base) }),
      "POST /auth/register": () => ({ status: 400, body: { error: "invalid_client_metadata" } }),
    });
    await post({ provider_id: "refused", name: "Refused", mcp_server_url: srv.base }).expect(400, {
      detail: `MCP discovery failed at dynamic client registration (${srv.base}/auth/register): HTTP 400`,
    });
  });
});

describe("end to end over real HTTP", () => {
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it("startMockServer discovers its own fixture MCP server through its listening socket", async () => {
    mock = await startMockServer({ port: 0, seed: 1 });
    const res = await fetch(`${mock.url}/v2/auth/providers/mcp-discover`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(discover("github-tools", mock.url, "github-tools")),
    });
    expect(res.status).toBe(200);
    const provider = await res.json();
    expect(provider).toMatchObject({
      provider_id: "github-tools",
      auth_url: `${mock.url}/_fixtures/mcp/github-tools/authorize`,
      token_url: `${mock.url}/_fixtures/mcp/github-tools/token`,
      mcp_server_url: `${mock.url}/_fixtures/mcp/github-tools/mcp`,
      is_dynamic_client: true,
      uses_pkce: true,
      code_challenge_method: "S256",
    });
    // The metadata and the registration went over the network: they are in the request journal.
    expect(mock.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /.well-known/oauth-protected-resource/_fixtures/mcp/github-tools/mcp 200",
      "GET /.well-known/oauth-authorization-server/_fixtures/mcp/github-tools 200",
      "POST /_fixtures/mcp/github-tools/register 201",
      "POST /v2/auth/providers/mcp-discover 200",
    ]);
    const registration = mock.requests({ path: "/_fixtures/mcp/github-tools/register" })[0];
    expect(registration?.body).toMatchObject({ client_name: "github-tools provider", redirect_uris: [`${mock.url}/v2/auth/callback/github-tools`] });
    const listed = await (await fetch(`${mock.url}/v2/auth/providers/github-tools`)).json();
    expect(listed).toEqual(provider);
  });
});

describe("mcp_servers fixtures", () => {
  it("fill defaults from the schema", async () => {
    const app = createApp({ seed: 7, fixtures: { mcp_servers: [{ slug: "bare" }] } });
    await request(app)
      .get("/.well-known/oauth-authorization-server/_fixtures/mcp/bare")
      .set("Host", "mock.test")
      .expect(200)
      .expect((res) => {
        expect(res.body).toMatchObject({ registration_endpoint: "http://mock.test/_fixtures/mcp/bare/register", scopes_supported: [], code_challenge_methods_supported: ["S256"] });
      });
  });

  it("refuse bad entries with file, pointer and reason", () => {
    let error: unknown;
    try {
      // Wrong on purpose (an unknown fail_at, an unknown key): the cast gets it past the fixture type.
      createApp({ seed: 1, fixtures: { mcp_servers: [{ slug: "Bad Slug" }, { slug: "ok", fail_at: "token" }, { slug: "dup" }, { slug: "dup", tools: [] }, { slug: "dup" }] } as unknown as FixtureDocument });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LoadError);
    const at = "<fixtures object 1>";
    expect((error as LoadError).problems).toEqual([
      { file: at, pointer: "/mcp_servers/0/slug", reason: 'must match pattern "^[a-z0-9][a-z0-9-]{0,62}$"; got "Bad Slug"' },
      {
        file: at,
        pointer: "/mcp_servers/1/fail_at",
        reason: 'must be one of "protected-resource-metadata", "authorization-server-metadata", "client-registration"; got "token"',
      },
      { file: at, pointer: "/mcp_servers/3/tools", reason: "unknown property (not in the schema)" },
      { file: at, pointer: "/mcp_servers/4/slug", reason: 'duplicate slug "dup"' },
    ]);
  });
});
