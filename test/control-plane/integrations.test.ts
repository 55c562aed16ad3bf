import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, LoadError, type FixtureDocument } from "../../src/index.js";

const ACME_CORP = "3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c";
const ACME_LABS = "8f2d1c3b-4a5e-4f6d-8b7c-9e0a1b2c3d4e";
const ACME_FORGE = "c6a4e2f0-1b3d-4e5f-a7b9-c1d3e5f7a9b2";

describe("GET …/install", () => {
  it("github lists the GitHub App installations, in fixture order", async () => {
    const app = createApp({ seed: 7 });
    const expected = [
      { id: ACME_CORP, installation_id: 41230981, name: "acme-corp" },
      { id: ACME_LABS, installation_id: 41230982, name: "acme-labs" },
    ];
    await request(app).get("/v1/integrations/github/install").expect("Content-Type", /application\/json/).expect(200, expected);
    await request(app).get("/v1/integrations/repohost/install").expect(200, expected);
  });

  it("forge lists only the hosted-forge integrations", async () => {
    await request(createApp({ seed: 7 }))
      .get("/v1/integrations/forge/github/install")
      .expect(200, [{ id: ACME_FORGE, installation_id: 51000017, name: "acme-forge" }]);
  });

  it("an empty mock lists nothing", async () => {
    await request(createApp({ seed: 7, fixtures: false })).get("/v1/integrations/github/install").expect(200, []);
  });
});

describe("GET …/{integration_id}/repos", () => {
  it("lists the repositories with the values POST /v2/deployments takes", async () => {
    const res = await request(createApp({ seed: 7 })).get(`/v1/integrations/github/${ACME_CORP}/repos`).expect(200);
    expect(res.body).toHaveLength(6);
    expect(res.body[0]).toEqual({
      host_integration_id: ACME_CORP,
      id: 712345601,
      name: "support-agent",
      owner: "acme-corp",
      url: "https://github.com/acme-corp/support-agent",
      default_branch: "main",
    });
    for (const repo of res.body) {
      expect(repo.host_integration_id).toBe(ACME_CORP);
      expect(repo.url).toBe(`https://github.com/${repo.owner}/${repo.name}`);
    }
    expect(new Set(res.body.map((r: { default_branch: string }) => r.default_branch))).toEqual(new Set(["main", "master", "develop"]));
  });

  it("every bundled integration has at least 5 repositories", async () => {
    const app = createApp({ seed: 7 });
    for (const [prefix, id] of [["github", ACME_CORP], ["github", ACME_LABS], ["forge/github", ACME_FORGE]] as const) {
      const res = await request(app).get(`/v1/integrations/${prefix}/${id}/repos`).expect(200);
      expect(res.body.length).toBeGreaterThanOrEqual(5);
      expect(res.body.every((r: { host_integration_id: string }) => r.host_integration_id === id)).toBe(true);
    }
  });

  it("the repohost alias answers exactly like github, and upper-case ids are accepted", async () => {
    const app = createApp({ seed: 7 });
    const github = await request(app).get(`/v1/integrations/github/${ACME_LABS}/repos`).expect(200);
    const alias = await request(app).get(`/v1/integrations/repohost/${ACME_LABS.toUpperCase()}/repos`).expect(200);
    expect(alias.text).toBe(github.text);
  });

  it("an unknown integration, or one of the other kind, is 404", async () => {
    const app = createApp({ seed: 7 });
    const unknown = "0f0f0f0f-0000-4000-8000-000000000000";
    await request(app).get(`/v1/integrations/github/${unknown}/repos`).expect(404, { detail: `Integration ID ${unknown} not found.` });
    await request(app).get(`/v1/integrations/github/${ACME_FORGE}/repos`).expect(404, { detail: `Integration ID ${ACME_FORGE} not found.` });
    await request(app).get(`/v1/integrations/forge/github/${ACME_CORP}/repos`).expect(404, { detail: `Integration ID ${ACME_CORP} not found.` });
    await request(app).get(`/v1/integrations/repohost/${ACME_FORGE}/repos`).expect(404);
  });

  it("a non-UUID id is 422 naming the path parameter", async () => {
    const app = createApp({ seed: 7 });
    for (const path of ["/v1/integrations/github/acme/repos", "/v1/integrations/forge/github/acme/repos", "/v1/integrations/repohost/acme/repos"]) {
      await request(app)
        .get(path)
        .expect(422, {
          detail: [
            {
              type: "uuid_parsing",
              loc: ["path", "integration_id"],
              msg: "Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `m` at 3",
              input: "acme",
              ctx: { error: "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `m` at 3" },
            },
          ],
        });
    }
  });

  it("wrong methods are 405 and the API key is required when configured", async () => {
    const app = createApp({ seed: 7, apiKey: "k" });
    await request(app).get("/v1/integrations/github/install").expect(401, { detail: "Invalid token" });
    await request(app).post("/v1/integrations/github/install").set("X-Api-Key", "k").expect(405, { detail: "Method Not Allowed" });
    await request(app).get(`/v1/integrations/github/${ACME_CORP}/repos`).set("X-Api-Key", "k").expect(200);
  });

  it("answers byte-identically for the same seed", async () => {
    const fixtures: FixtureDocument = { integrations: [{ kind: "forge", repositories: [{}, { name: "x" }] }] };
    const body = async () => {
      const app = createApp({ seed: 11, fixtures });
      const install = await request(app).get("/v1/integrations/forge/github/install");
      return [install.text, (await request(app).get(`/v1/integrations/forge/github/${install.body[0].id}/repos`)).text];
    };
    expect(await body()).toEqual(await body());
  });
});

describe("integrations fixtures", () => {
  it("fills a repository's integration id, owner and url from its integration", async () => {
    const id = "11111111-2222-4333-8444-555555555555";
    const app = createApp({ seed: 2, fixtures: { integrations: [{ id, name: "octo", repositories: [{ name: "bot" }, {}] }] } });
    const res = await request(app).get(`/v1/integrations/github/${id}/repos`).expect(200);
    expect(res.body[0]).toMatchObject({ host_integration_id: id, owner: "octo", name: "bot", url: "https://github.com/octo/bot" });
    expect(res.body[1]).toMatchObject({ host_integration_id: id, owner: "octo", url: `https://github.com/octo/${res.body[1].name}` });
    expect(typeof res.body[1].id).toBe("number");
    const install = await request(app).get("/v1/integrations/github/install").expect(200);
    expect(install.body).toEqual([{ id, installation_id: expect.any(Number), name: "octo" }]);
  });

  it("refuses bad entries with file, pointer and reason", () => {
    // Wrong on purpose, so untyped: FixtureDocument would refuse it at compile time.
    const fixtures: unknown = {
      integrations: [
        { id: "11111111-2222-4333-8444-555555555555", kind: "gitlab", repositories: [{ id: "x" }, { host_integration_id: "0f0f0f0f-0000-4000-8000-000000000000" }] },
        { id: "not-a-uuid", repositories: [{ id: "also wrong, but checked once the id is fixed" }] },
        { id: "22222222-2222-4333-8444-555555555555", repositories: {} },
        { id: "33333333-2222-4333-8444-555555555555" },
        { id: "33333333-2222-4333-8444-555555555555" },
      ],
    };
    let error: LoadError | undefined;
    try {
      createApp({ seed: 1, fixtures: fixtures as FixtureDocument });
    } catch (err) {
      error = err as LoadError;
    }
    expect(error).toBeInstanceOf(LoadError);
    const at = "<fixtures object 1>";
    expect(error?.problems).toEqual([
      { file: at, pointer: "/integrations/0/kind", reason: 'must be one of "github", "forge"; got "gitlab"' },
      { file: at, pointer: "/integrations/0/repositories/0/id", reason: 'must be integer; got "x"' },
      {
        file: at,
        pointer: "/integrations/0/repositories/1/host_integration_id",
        reason: 'must be the integration\'s id "11111111-2222-4333-8444-555555555555" (or left out); got "0f0f0f0f-0000-4000-8000-000000000000"',
      },
      { file: at, pointer: "/integrations/1/id", reason: 'must match format "uuid"; got "not-a-uuid"' },
      { file: at, pointer: "/integrations/2/repositories", reason: "must be array; got {}" },
      { file: at, pointer: "/integrations/4/id", reason: 'duplicate integration id "33333333-2222-4333-8444-555555555555" (first at <fixtures object 1>#/integrations/3)' },
    ]);
  });
});
