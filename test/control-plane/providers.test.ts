import { describe, expect, it } from "vitest";
import request from "supertest";
import { fileURLToPath } from "node:url";
import { createApp, mockOf } from "../../src/index.js";

const BUNDLED = fileURLToPath(new URL("../../fixtures/", import.meta.url));

const ORG = "5e1d2c3b-7a8f-4e6d-9c0b-1a2b3c4d5e6f";
const START = "2026-01-15T09:00:00.000000+00:00";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FIELDS = [
  "id",
  "organization_id",
  "provider_id",
  "name",
  "client_id",
  "auth_url",
  "token_url",
  "uses_pkce",
  "code_challenge_method",
  "provider_type",
  "mcp_server_url",
  "token_endpoint_auth_method",
  "is_dynamic_client",
  "created_at",
  "updated_at",
];

const manual = {
  provider_id: "github-local-dev-2",
  name: "GitHub (local)",
  client_id: "Iv23liAbc",
  client_secret: "s3cr3t-value",
  auth_url: "https://github.com/login/oauth/authorize",
  token_url: "https://github.com/login/oauth/access_token",
};

describe("GET /v2/auth/providers", () => {
  it("lists the bundled providers, oldest first, every schema field present and no client_secret", async () => {
    const res = await request(createApp({ seed: 7 })).get("/v2/auth/providers").expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.map((p: { provider_id: string }) => p.provider_id)).toEqual(["salesforce", "github-local-dev", "slack-workspace", "microsoft-entra", "notion-mcp"]);
    for (const provider of res.body) expect(Object.keys(provider)).toEqual(FIELDS);
    expect(res.text).not.toMatch(/"client_secret"/);
    expect(res.text).not.toContain("f3c1a9e07b5d4c2e8a6f1b3d5c7e9a0b2d4f6a8c");
    expect(res.body[1]).toEqual({
      id: expect.stringMatching(UUID),
      organization_id: ORG,
      provider_id: "github-local-dev",
      name: "GitHub",
      client_id: "Iv23liQ8mX2rT5vK9pLw",
      auth_url: "https://github.com/login/oauth/authorize",
      token_url: "https://github.com/login/oauth/access_token",
      uses_pkce: false,
      code_challenge_method: "S256",
      provider_type: null,
      mcp_server_url: null,
      token_endpoint_auth_method: expect.stringMatching(/^client_secret_(basic|post)$/),
      is_dynamic_client: false,
      created_at: "2025-09-02T14:21:07.412000+00:00",
      updated_at: "2025-09-02T14:21:07.412000+00:00",
    });
  });

  it("includes the provider created by MCP discovery", async () => {
    const res = await request(createApp({ seed: 7 })).get("/v2/auth/providers/notion-mcp").expect(200);
    expect(res.body).toMatchObject({
      mcp_server_url: "https://mcp.notion.com/mcp",
      is_dynamic_client: true,
      uses_pkce: true,
      code_challenge_method: "S256",
      token_endpoint_auth_method: "none",
      provider_type: null,
    });
  });

  it("orders equal created_at by id", async () => {
    const at = "2025-01-01T00:00:00Z";
    const app = createApp({
      seed: 1,
      fixtures: { oauth_providers: [
        { provider_id: "b", id: "00000000-0000-4000-8000-00000000000b", created_at: at, updated_at: at },
        { provider_id: "a", id: "00000000-0000-4000-8000-00000000000a", created_at: at, updated_at: at },
        { provider_id: "old", created_at: "2024-01-01T00:00:00Z", updated_at: at },
      ] },
    });
    const res = await request(app).get("/v2/auth/providers").expect(200);
    expect(res.body.map((p: { provider_id: string }) => p.provider_id)).toEqual(["old", "a", "b"]);
    expect(res.body[1].created_at).toBe("2025-01-01T00:00:00.000000+00:00");
  });

  it("requires the API key when one is configured", async () => {
    const app = createApp({ seed: 7, apiKey: "k" });
    await request(app).get("/v2/auth/providers").expect(401, { detail: "Invalid token" });
    await request(app).get("/v2/auth/providers").set("X-Api-Key", "k").expect(200);
  });
});

describe("POST /v2/auth/providers", () => {
  it("creates with the spec's defaults and answers 200 without the secret", async () => {
    const app = createApp({ seed: 7 });
    const res = await request(app).post("/v2/auth/providers").send(manual).expect(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      organization_id: ORG,
      provider_id: "github-local-dev-2",
      name: "GitHub (local)",
      client_id: "Iv23liAbc",
      auth_url: manual.auth_url,
      token_url: manual.token_url,
      uses_pkce: false,
      code_challenge_method: "S256",
      provider_type: null,
      mcp_server_url: null,
      token_endpoint_auth_method: "client_secret_post",
      is_dynamic_client: false,
      created_at: START,
      updated_at: START,
    });
    expect(Object.keys(res.body)).toEqual(FIELDS);
    expect(res.text).not.toContain("s3cr3t-value");
    const list = await request(app).get("/v2/auth/providers").expect(200);
    expect(list.body.at(-1)).toEqual(res.body);
    await request(app).get("/v2/auth/providers/github-local-dev-2").expect(200, res.body);
  });

  it("keeps given optional values", async () => {
    const res = await request(createApp({ seed: 7 }))
      .post("/v2/auth/providers")
      .send({ ...manual, uses_pkce: true, code_challenge_method: "plain", provider_type: "slack", token_endpoint_auth_method: "client_secret_basic" })
      .expect(200);
    expect(res.body).toMatchObject({ uses_pkce: true, code_challenge_method: "plain", provider_type: "slack", token_endpoint_auth_method: "client_secret_basic" });
  });

  it("refuses a duplicate provider_id with 409", async () => {
    const app = createApp({ seed: 7 });
    await request(app)
      .post("/v2/auth/providers")
      .send({ ...manual, provider_id: "slack-workspace" })
      .expect(409, { detail: "OAuth provider with provider_id 'slack-workspace' already exists." });
  });

  it("lists every missing field as FastAPI does", async () => {
    const res = await request(createApp({ seed: 7 })).post("/v2/auth/providers").send({}).expect(422);
    // `input` is left out of the comparison: FastAPI echoes the body as sent, see the report on validateBody.
    expect(res.body.detail.map(({ input: _input, ...issue }: { input: unknown }) => issue)).toEqual(
      ["provider_id", "name", "client_id", "auth_url", "token_url"].map((field) => ({ type: "missing", loc: ["body", field], msg: "Field required" })),
    );
  });

  it("names wrongly typed fields with pydantic's types", async () => {
    const res = await request(createApp({ seed: 7 }))
      .post("/v2/auth/providers")
      .send({ ...manual, provider_id: 12, uses_pkce: "maybe", token_endpoint_auth_method: "private_key_jwt" })
      .expect(422);
    expect(res.body.detail).toEqual([
      { type: "string_type", loc: ["body", "provider_id"], msg: "Input should be a valid string", input: 12 },
      { type: "bool_parsing", loc: ["body", "uses_pkce"], msg: "Input should be a valid boolean, unable to interpret input", input: "maybe" },
      {
        type: "enum",
        loc: ["body", "token_endpoint_auth_method"],
        msg: "Input should be 'none', 'client_secret_basic' or 'client_secret_post'",
        input: "private_key_jwt",
        ctx: { expected: "'none', 'client_secret_basic' or 'client_secret_post'" },
      },
    ]);
  });

  it("refuses an unknown provider_type", async () => {
    const res = await request(createApp({ seed: 7 })).post("/v2/auth/providers").send({ ...manual, provider_type: "github" }).expect(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "provider_type"], input: "github" });
  });

  it("answers malformed JSON with FastAPI's json_invalid", async () => {
    const res = await request(createApp({ seed: 7 })).post("/v2/auth/providers").set("Content-Type", "application/json").send("{bad").expect(422);
    expect(res.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 1], msg: "JSON decode error" });
  });
});

describe("GET|PATCH|DELETE /v2/auth/providers/{provider_id}", () => {
  it("a missing provider is 404 on every method", async () => {
    const app = createApp({ seed: 7 });
    const detail = { detail: "OAuth provider 'nope' not found." };
    await request(app).get("/v2/auth/providers/nope").expect(404, detail);
    await request(app).patch("/v2/auth/providers/nope").send({ name: "x" }).expect(404, detail);
    await request(app).delete("/v2/auth/providers/nope").expect(404, detail);
  });

  it("PATCH changes the given fields, leaves null ones, ignores others and moves updated_at", async () => {
    const app = createApp({ seed: 7 });
    mockOf(app).clock.advance("1h");
    const before = (await request(app).get("/v2/auth/providers/slack-workspace").expect(200)).body;
    const res = await request(app)
      .patch("/v2/auth/providers/slack-workspace")
      .send({ name: "Slack (prod)", client_id: null, uses_pkce: true, client_secret: "new-secret", provider_id: "renamed", provider_type: "microsoft" })
      .expect(200);
    expect(res.body).toEqual({ ...before, name: "Slack (prod)", uses_pkce: true, updated_at: "2026-01-15T10:00:00.000000+00:00" });
    expect(res.text).not.toContain("new-secret");
    await request(app).get("/v2/auth/providers/slack-workspace").expect(200, res.body);
    await request(app).get("/v2/auth/providers/renamed").expect(404);
  });

  it("PATCH validates before looking up (422 for a bad body, even for an unknown slug)", async () => {
    const res = await request(createApp({ seed: 7 })).patch("/v2/auth/providers/nope").send({ uses_pkce: 3 }).expect(422);
    expect(res.body).toEqual({ detail: [{ type: "bool_type", loc: ["body", "uses_pkce"], msg: "Input should be a valid boolean", input: 3 }] });
  });

  it("DELETE answers 200 with what was deleted; the slug can then be reused", async () => {
    const app = createApp({ seed: 7 });
    await request(app).delete("/v2/auth/providers/microsoft-entra").expect(200, { provider_id: "microsoft-entra", deleted: true });
    await request(app).get("/v2/auth/providers/microsoft-entra").expect(404);
    const list = await request(app).get("/v2/auth/providers").expect(200);
    expect(list.body.map((p: { provider_id: string }) => p.provider_id)).not.toContain("microsoft-entra");
    await request(app).post("/v2/auth/providers").send({ ...manual, provider_id: "microsoft-entra" }).expect(200);
  });

  it("a wrong method on a provider path is 405", async () => {
    await request(createApp({ seed: 7 })).put("/v2/auth/providers/slack-workspace").expect(405, { detail: "Method Not Allowed" });
  });

  it("reset() brings deleted and created providers back to the start", async () => {
    const app = createApp({ seed: 7 });
    const start = (await request(app).get("/v2/auth/providers")).text;
    await request(app).delete("/v2/auth/providers/slack-workspace").expect(200);
    await request(app).post("/v2/auth/providers").send(manual).expect(200);
    mockOf(app).reset();
    expect((await request(app).get("/v2/auth/providers")).text).toBe(start);
  });
});

describe("determinism", () => {
  it("two apps with the same seed answer the same requests byte for byte", async () => {
    const run = async () => {
      const app = createApp({ seed: 42, fixtures: [BUNDLED, { generate: { oauth_providers: { count: 20 } } }] });
      const out: string[] = [];
      out.push((await request(app).get("/v2/auth/providers")).text);
      out.push((await request(app).post("/v2/auth/providers").send(manual)).text);
      out.push((await request(app).patch("/v2/auth/providers/github-local-dev-2").send({ name: "n" })).text);
      out.push((await request(app).get("/v2/auth/providers")).text);
      return out;
    };
    expect(await run()).toEqual(await run());
  });

  it("another seed generates other records", async () => {
    const list = async (seed: number) => (await request(createApp({ seed })).get("/v2/auth/providers/salesforce")).body;
    expect((await list(1)).id).not.toBe((await list(2)).id);
  });
});
