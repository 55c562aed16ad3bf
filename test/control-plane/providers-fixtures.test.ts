import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, LoadError, type FixtureDocument } from "../../src/index.js";

const ORG = "5e1d2c3b-7a8f-4e6d-9c0b-1a2b3c4d5e6f";

function fixtureFile(content: FixtureDocument): string {
  const file = join(mkdtempSync(join(tmpdir(), "apm-providers-")), "providers.json");
  writeFileSync(file, JSON.stringify(content, null, 2));
  return file;
}

/** Loads a document that is wrong on purpose (so typed `unknown`: FixtureDocument would refuse it at compile time). */
function refused(content: unknown): { file: string; error: LoadError } {
  const file = fixtureFile(content as FixtureDocument);
  try {
    createApp({ seed: 1, fixtures: [file] });
  } catch (error) {
    expect(error).toBeInstanceOf(LoadError);
    return { file, error: error as LoadError };
  }
  throw new Error("expected the fixtures to be refused");
}

describe("oauth_providers fixtures", () => {
  it("a wrongly typed field is refused with file, pointer and reason", () => {
    const { file, error } = refused({ oauth_providers: [{ name: "GitHub" }, { name: "Slack", uses_pkce: "yes" }] });
    expect(error.problems).toEqual([{ file, pointer: "/oauth_providers/1/uses_pkce", reason: 'must be boolean; got "yes"' }]);
    expect(error.message).toContain(`${file}#/oauth_providers/1/uses_pkce: must be boolean; got "yes"`);
  });

  it("an unknown key is refused, a client_secret of the wrong type too", () => {
    const { file, error } = refused({ oauth_providers: [{ name: "GitHub", scopes: ["repo"], client_secret: 42 }] });
    expect(error.problems).toEqual([
      { file, pointer: "/oauth_providers/0/client_secret", reason: "must be string or null; got 42" },
      { file, pointer: "/oauth_providers/0/scopes", reason: "unknown property (not in the schema)" },
    ]);
  });

  it("a duplicate provider_id is refused, naming the first one", () => {
    const { file, error } = refused({ oauth_providers: [{ provider_id: "gh" }, { provider_id: "gh" }] });
    expect(error.problems).toEqual([{ file, pointer: "/oauth_providers/1/provider_id", reason: `duplicate provider_id "gh" (first at ${file}#/oauth_providers/0)` }]);
  });

  it("fills left-out fields coherently: organization, slug, real endpoints, type, timestamps before the start", async () => {
    const app = createApp({ seed: 3, fixtures: [{ organization_id: ORG }, { oauth_providers: [{ name: "Slack" }, { name: "Slack" }, { name: "Acme SSO", provider_id: "slack-2" }] }] });
    const res = await request(app).get("/v2/auth/providers").expect(200);
    const byId = Object.fromEntries(res.body.map((p: { provider_id: string }) => [p.provider_id, p]));
    expect(Object.keys(byId).sort()).toEqual(["slack", "slack-2", "slack-3"]);
    expect(byId.slack).toMatchObject({
      organization_id: ORG,
      name: "Slack",
      auth_url: "https://slack.com/oauth/v2/authorize",
      token_url: "https://slack.com/api/oauth.v2.access",
      provider_type: "slack",
      mcp_server_url: null,
      is_dynamic_client: false,
      code_challenge_method: "S256",
    });
    expect(byId["slack-2"]).toMatchObject({ name: "Acme SSO", provider_type: null });
    for (const p of res.body) {
      expect(Date.parse(p.created_at)).toBeLessThan(Date.parse("2026-01-15T09:00:00Z"));
      expect(Date.parse(p.updated_at)).toBeGreaterThanOrEqual(Date.parse(p.created_at));
      expect(Date.parse(p.updated_at)).toBeLessThanOrEqual(Date.parse("2026-01-15T09:00:00Z"));
      expect(p.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      expect(p.token_endpoint_auth_method).not.toBe("none");
    }
  });

  it("an entry with mcp_server_url is a dynamic PKCE client on that server", async () => {
    const app = createApp({ seed: 3, fixtures: { oauth_providers: [{ provider_id: "linear", name: "Linear", mcp_server_url: "https://mcp.linear.app/mcp" }] } });
    const res = await request(app).get("/v2/auth/providers/linear").expect(200);
    expect(res.body).toMatchObject({
      mcp_server_url: "https://mcp.linear.app/mcp",
      auth_url: "https://mcp.linear.app/authorize",
      token_url: "https://mcp.linear.app/token",
      is_dynamic_client: true,
      uses_pkce: true,
      code_challenge_method: "S256",
      token_endpoint_auth_method: "none",
    });
  });

  it("generate.oauth_providers.count adds that many providers with unique slugs", async () => {
    const app = createApp({ seed: 5, fixtures: [{ oauth_providers: [{ provider_id: "kept" }] }, { generate: { oauth_providers: { count: 250 } } }] });
    const res = await request(app).get("/v2/auth/providers").expect(200);
    expect(res.body).toHaveLength(251);
    expect(new Set(res.body.map((p: { provider_id: string }) => p.provider_id)).size).toBe(251);
    expect(new Set(res.body.map((p: { id: string }) => p.id)).size).toBe(251);
    expect(res.text).not.toMatch(/"client_secret"/);
    const sorted = [...res.body].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1));
    expect(res.body).toEqual(sorted);
  });

  it("the same seed generates the same records; adding a fixture does not change the others", async () => {
    const list = async (extra: FixtureDocument[]) =>
      (await request(createApp({ seed: 9, fixtures: [{ oauth_providers: [{ name: "Google" }, { name: "Notion" }] }, ...extra] })).get("/v2/auth/providers/google")).text;
    expect(await list([])).toBe(await list([]));
    expect(await list([{ oauth_providers: [{ name: "Linear" }] }])).toBe(await list([]));
  });
});
