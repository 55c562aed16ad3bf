import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp, LoadError, mockOf } from "../../src/index.js";
import { requestToken } from "../../src/control-plane/auth-token-exchange.js";
import { closedAfterEach } from "../support/listening.js";

const BASE = "http://mock.test";
const LONE = "sur\ud800x";

/** pydantic's entry for text it cannot read as Unicode. */
const notUnicode = (loc: (string | number)[], input: unknown) => ({
  type: "string_unicode",
  loc,
  msg: "Input should be a valid string, unable to parse raw data as a unicode string",
  input,
});

const provider = { provider_id: "p", name: "P", client_id: "c", client_secret: "s", auth_url: `${BASE}/authorize`, token_url: `${BASE}/token` };

/**
 * A lone UTF-16 surrogate (`"\ud800"`) is valid JSON but not text: it cannot be put into a URL, a
 * header or a form, where encodeURIComponent throws on it. Fields the mock sends on are refused
 * when they arrive, so no stored record can make a later authenticate or callback fail.
 */
describe("ill-formed text in OAuth fields", () => {
  const app = createApp({ seed: 5, fixtures: false });
  const call = (method: "get" | "post" | "patch", path: string) => request(app)[method](path).set("Host", "mock.test");

  it("a provider field that goes into a URL, a header or a form is pydantic's 422, and nothing is stored", async () => {
    for (const field of ["provider_id", "client_id", "client_secret", "auth_url", "token_url"]) {
      const res = await call("post", "/v2/auth/providers").send({ ...provider, [field]: LONE }).expect(422);
      expect(res.body).toEqual({ detail: [notUnicode(["body", field], LONE)] });
    }
    expect((await call("get", "/v2/auth/providers").expect(200)).body).toEqual([]);

    const created = await call("post", "/v2/auth/providers").send(provider).expect(200);
    for (const field of ["client_id", "client_secret", "auth_url", "token_url"]) {
      const res = await call("patch", "/v2/auth/providers/p").send({ [field]: LONE, name: "renamed" }).expect(422);
      expect(res.body).toEqual({ detail: [notUnicode(["body", field], LONE)] });
    }
    expect((await call("get", "/v2/auth/providers/p").expect(200)).body).toEqual(created.body);

    for (const field of ["provider_id", "mcp_server_url"]) {
      const body = { provider_id: "d", name: "D", mcp_server_url: `${BASE}/_fixtures/mcp/github-tools/mcp`, [field]: LONE };
      const res = await call("post", "/v2/auth/providers/mcp-discover").send(body).expect(422);
      expect(res.body).toEqual({ detail: [notUnicode(["body", field], LONE)] });
    }
    expect((await call("get", "/v2/auth/providers").expect(200)).body.map((p: { provider_id: string }) => p.provider_id)).toEqual(["p"]);
    mockOf(app).reset();
  });

  it("text that is well-formed beyond the BMP (a surrogate pair) goes through the whole flow", async () => {
    const app = createApp({ seed: 5, fixtures: { mcp_servers: [{ slug: "s", code_challenge_methods: [], clients: [{ client_id: "c😀", client_secret: "s😀", token_endpoint_auth_method: "client_secret_basic", redirect_uris: ["/v2/auth/callback/p😀"] }] }] } });
    const call = (method: "get" | "post", path: string) => request(app)[method](path).set("Host", "mock.test");
    await call("post", "/v2/auth/providers")
      .send({ provider_id: "p😀", name: "P", client_id: "c😀", client_secret: "s😀", auth_url: "/_fixtures/mcp/s/authorize", token_url: "/_fixtures/mcp/s/token", token_endpoint_auth_method: "client_secret_basic" })
      .expect(200);
    const started = await call("post", "/v2/auth/authenticate").send({ provider: "p😀", scopes: ["a😀"] }).expect(200);
    const url = new URL(started.body.url);
    expect(url.searchParams.get("redirect_uri")).toBe(`${BASE}/v2/auth/callback/${encodeURIComponent("p😀")}`);
    const back = new URL((await call("get", url.pathname + url.search).expect(302)).headers.location as string);
    const done = await call("get", back.pathname + back.search).expect(200);
    expect(done.body).toMatchObject({ status: "completed", provider_id: "p😀" });
  });

  it("authenticate refuses an ill-formed scope (it goes into the authorization URL)", async () => {
    await call("post", "/v2/auth/providers").send(provider).expect(200);
    const res = await call("post", "/v2/auth/authenticate").send({ provider: "p", scopes: ["ok", LONE] }).expect(422);
    expect(res.body).toEqual({ detail: [notUnicode(["body", "scopes", 1], LONE)] });
    mockOf(app).reset();
  });

  it("the POST callback refuses an ill-formed code (it goes into the token request's form) and the flow stays pending", async () => {
    const app = createApp({ seed: 5 });
    const call = (method: "get" | "post", path: string) => request(app)[method](path).set("Host", "mock.test");
    await call("post", "/v2/auth/providers/mcp-discover").send({ provider_id: "gh", name: "GH", mcp_server_url: `${BASE}/_fixtures/mcp/github-tools/mcp` }).expect(200);
    const started = await call("post", "/v2/auth/authenticate").send({ provider: "gh", scopes: ["repo"] }).expect(200);
    const url = new URL(started.body.url);
    const back = new URL((await call("get", url.pathname + url.search).expect(302)).headers.location as string).searchParams;
    const res = await call("post", "/v2/auth/callback/gh").send({ code: LONE, state: back.get("state") }).expect(422);
    expect(res.body).toEqual({ detail: [notUnicode(["body", "code"], LONE)] });
    await call("post", "/v2/auth/callback/gh").send({ code: back.get("code"), state: back.get("state") }).expect(200);
  });

  it("a fixture provider with ill-formed text in such a field is refused with file, pointer and reason", () => {
    let error: unknown;
    try {
      createApp({ seed: 1, fixtures: { oauth_providers: [{ provider_id: "p", name: "P", client_id: "c", client_secret: LONE }] } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).problems).toEqual([
      { file: "<fixtures object 1>", pointer: "/oauth_providers/0/client_secret", reason: "must be well-formed Unicode text: it holds a lone surrogate" },
    ]);
  });
});

describe("the token request, for a record that got past the checks", () => {
  // No route can store such a record any more; this is the second line: building a header never throws.
  it("sends client_secret_basic credentials holding a lone surrogate as U+FFFD instead of throwing", async () => {
    let sent: string | undefined;
    const fetcher = async (_url: string, _form: Record<string, string>, authorization: string | undefined) => {
      sent = authorization;
      return new Response(JSON.stringify({ error: "invalid_client" }), { status: 401 });
    };
    const client = { token_url: "http://127.0.0.1:1/token", client_id: "c\ud800", client_secret: "s", token_endpoint_auth_method: "client_secret_basic" };
    expect(await requestToken(client, { grant_type: "authorization_code", code: "x" }, fetcher)).toEqual({ ok: false, why: "HTTP 401, invalid_client" });
    expect(Buffer.from((sent ?? "").replace(/^Basic /, ""), "base64").toString()).toBe("c%EF%BF%BD:s");
  });
});

/**
 * The token endpoint is a server the client named: its answer is read up to a bound (as MCP
 * discovery's documents are) and only a short piece of its OAuth error is quoted back.
 */
describe("the token endpoint's answer", () => {
  const track = closedAfterEach();


  /** A token endpoint on a loopback port answering `status` with `head`, `size` bytes of "x" (streamed) and `tail`. */
  async function tokenEndpoint(status: number, head: string, size: number, tail: string): Promise<string> {
    const server = createServer((req, res) => {
      req.socket.on("error", () => undefined); // the mock may stop reading and close the connection
      req.resume();
      res.writeHead(status, { "Content-Type": "application/json" });
      res.write(head);
      const chunk = "x".repeat(64 * 1024);
      let left = size;
      const write = () => {
        while (left > 0 && !res.destroyed) {
          const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
          left -= piece.length;
          if (!res.write(piece)) return void res.once("drain", write);
        }
        if (!res.destroyed) res.end(tail);
      };
      write();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    track(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** A mock with provider "p" whose token_url is `base`/token, and a started flow's auth_id. */
  async function flowTo(base: string) {
    const app = createApp({ seed: 5, fixtures: false });
    const call = (method: "get" | "post", path: string) => request(app)[method](path).set("Host", "mock.test");
    await call("post", "/v2/auth/providers").send({ ...provider, auth_url: `${base}/authorize`, token_url: `${base}/token` }).expect(200);
    const started = await call("post", "/v2/auth/authenticate").send({ provider: "p", scopes: ["a"] }).expect(200);
    return { call, authId: started.body.auth_id as string };
  }

  it("an answer past 1 MB is not read to its end nor quoted, and nothing is stored", async () => {
    const base = await tokenEndpoint(400, '{"error":"invalid_grant","error_description":"', 2_000_000, '"}');
    const { call, authId } = await flowTo(base);
    const began = Date.now();
    const res = await call("get", `/v2/auth/callback/p?code=abc&state=${authId}`).expect(400);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(res.text.length).toBeLessThan(200);
    expect(res.body).toEqual({ detail: `Token exchange at ${base}/token failed: HTTP 400, the response is larger than 1000000 bytes` });
    await call("get", "/v2/auth/tokens?provider_id=p").expect(200, []);
  });

  it("of a refusal under the bound, only the OAuth error and its description are quoted, cut to 200 characters", async () => {
    const base = await tokenEndpoint(400, '{"other":"', 100_000, '","error":"invalid_grant","error_description":"' + "d".repeat(5_000) + '"}');
    const { call, authId } = await flowTo(base);
    const res = await call("get", `/v2/auth/callback/p?code=abc&state=${authId}`).expect(400);
    const quoted = `invalid_grant: ${"d".repeat(5_000)}`.slice(0, 199) + "…";
    expect(res.body).toEqual({ detail: `Token exchange at ${base}/token failed: HTTP 400, ${quoted}` });
  });
});
