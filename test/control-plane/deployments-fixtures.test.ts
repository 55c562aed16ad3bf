import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, LoadError, mockOf, type FixtureDocument } from "../../src/index.js";
import { contextOf } from "../../src/mock-control.js";
import { deploymentsIn } from "../../src/control-plane/deployments-store.js";

const PRODUCTION = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const STAGING = "9b2f4c1e-3d5a-4b7c-8e9f-0a1b2c3d4e5f";
const ACME_CORP = "3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c";
const CLOCK_START = "2026-01-15T09:00:00.000000+00:00";

/** Loads documents that are wrong on purpose (so typed `unknown`: FixtureDocument would refuse them at compile time). */
function problems(...docs: unknown[]) {
  try {
    createApp({ seed: 1, fixtures: ["fixtures/organization.json", "fixtures/integrations.json", ...(docs as FixtureDocument[])] });
  } catch (err) {
    expect(err).toBeInstanceOf(LoadError);
    return (err as LoadError).problems.map(({ pointer, reason }) => ({ pointer, reason }));
  }
  throw new Error("expected the fixtures to be refused");
}

interface Stored {
  deployment: Record<string, unknown> & { source: string; status: string; source_config: Record<string, unknown> };
  revisions: { status: string }[];
}

describe("the bundled deployments", () => {
  const app = createApp({ seed: 42, lifecycle: "manual" });
  const deployments = deploymentsIn(contextOf(mockOf(app)));
  const all = [...deployments.values()].map((stored) => stored.deployment) as unknown as Stored["deployment"][];
  const revisions = [...deployments.values()].flatMap((stored) => stored.revisions.map((r) => r.revision.status));

  it("cover every source, deployment type, status and revision status, in both tenants", () => {
    expect(all.length).toBeGreaterThanOrEqual(25);
    expect(new Set(all.map((d) => d.source))).toEqual(new Set(["github", "external_docker", "internal_docker", "internal_source"]));
    expect(new Set(all.map((d) => d.source_config.deployment_type))).toEqual(new Set(["dev_free", "dev", "prod", null]));
    expect(new Set(all.map((d) => d.status))).toEqual(new Set(["AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"]));
    expect(new Set(revisions)).toEqual(
      new Set(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "DEPLOYED", "SKIPPED", "INTERRUPTED", "UNKNOWN"]),
    );
    expect(new Set(all.map((d) => d.tenant_id))).toEqual(new Set([PRODUCTION, STAGING]));
    expect(new Set(all.map((d) => d.image_version)).size).toBeGreaterThanOrEqual(4);
  });

  it("github deployments point at repositories the integrations list", async () => {
    const repos = new Set<string>();
    for (const path of ["/v1/integrations/github/install", "/v1/integrations/forge/github/install"]) {
      for (const integration of (await request(app).get(path).expect(200)).body) {
        const prefix = path.includes("forge") ? "/v1/integrations/forge/github" : "/v1/integrations/github";
        for (const repo of (await request(app).get(`${prefix}/${integration.id}/repos`).expect(200)).body) repos.add(`${repo.host_integration_id} ${repo.url}`);
      }
    }
    for (const d of all.filter((x) => x.source === "github")) expect(repos).toContain(`${d.source_config.integration_id} ${d.source_config.repo_url}`);
  });

  it("timestamps are before the clock's start", () => {
    // Stored as epoch ms (formatted only on the wire).
    for (const d of all) expect(d.created_at as number).toBeLessThan(Date.parse(CLOCK_START));
  });
});

describe("fixture entries are completed coherently", () => {
  it("a minimal entry gets a coherent record for its source, a DEPLOYED revision and tags kept internal", async () => {
    const app = createApp({
      seed: 3,
      publicUrl: "http://mock.test",
      fixtures: ["fixtures/organization.json", "fixtures/integrations.json", { deployments: [{ name: "minimal", source: "github", tag_value_ids: [ACME_CORP] }] }],
    });
    const res = await request(app).get("/v2/deployments").expect(200);
    const [d] = res.body.resources;
    expect(res.body.resources).toHaveLength(1);
    expect(d).toMatchObject({ name: "minimal", source: "github", tenant_id: PRODUCTION, status: "READY", active_revision_id: d.latest_revision_id });
    expect(d.source_config).toMatchObject({ custom_url: `http://mock.test/agents/${d.id}`, resource_spec: null, listener_id: null });
    expect(d.source_config.repo_url).toMatch(/^https:\/\/github\.com\/acme-/);
    expect(d).not.toHaveProperty("tag_value_ids");
    expect((await request(app).get(`/v2/deployments?tag_value_ids=${ACME_CORP}`).expect(200)).body.resources).toHaveLength(1);
    const revisions = (await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200)).body.resources;
    expect(revisions).toEqual([expect.objectContaining({ id: d.latest_revision_id, status: "DEPLOYED", source_revision_config: d.source_revision_config })]);
  });

  it("fixture timestamps in any ISO form are answered in the service's form and ordered by instant, not by text", async () => {
    // 10:00+02:00 is 08:00Z: earlier than 09:00Z although its text sorts after it.
    const app = createApp({
      seed: 3,
      fixtures: [
        "fixtures/organization.json",
        "fixtures/integrations.json",
        { deployments: [{ name: "east", source: "internal_docker", created_at: "2025-06-01T10:00:00+02:00" }, { name: "utc", source: "internal_docker", created_at: "2025-06-01T09:00:00Z" }] },
      ],
    });
    const list = (await request(app).get("/v2/deployments").expect(200)).body.resources;
    expect(list.map((d: { name: string; created_at: string }) => [d.name, d.created_at])).toEqual([
      ["utc", "2025-06-01T09:00:00.000000+00:00"],
      ["east", "2025-06-01T08:00:00.000000+00:00"],
    ]);
    const one = (await request(app).get(`/v2/deployments/${list[1].id}`).expect(200)).body;
    expect(one.created_at).toBe("2025-06-01T08:00:00.000000+00:00");
  });

  it("the same seed gives the same fixture records; generation does not depend on other entries", async () => {
    const doc = (extra: object[]) => ["fixtures/organization.json", "fixtures/integrations.json", { deployments: [{ name: "stable", source: "external_docker" }, ...extra] }];
    const one = createApp({ seed: 5, publicUrl: "http://mock.test", fixtures: doc([]) });
    const two = createApp({ seed: 5, publicUrl: "http://mock.test", fixtures: doc([{ name: "another" }]) });
    const pick = async (app: ReturnType<typeof createApp>) => (await request(app).get("/v2/deployments?name_contains=stable").expect(200)).text;
    expect(await pick(one)).toBe(await pick(two));
  });

  it("a later mock with the same seed stores what the first did, whatever its base URL, and answers on its own; another seed its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-fixtures-"));
    const file = join(dir, "deployments.json");
    writeFileSync(file, JSON.stringify({ deployments: [{ name: "kept", source: "github" }, { name: "own-url", source: "external_docker", source_config: { custom_url: "https://own.example" } }] }));
    const fixtures = ["fixtures/organization.json", "fixtures/integrations.json", file];
    const stored = (app: ReturnType<typeof createApp>) => JSON.stringify([...deploymentsIn(contextOf(mockOf(app))).values()]);
    const first = createApp({ seed: 6, publicUrl: "http://one.test", fixtures });
    const other = createApp({ seed: 7, publicUrl: "http://one.test", fixtures });
    const later = createApp({ seed: 6, publicUrl: "http://two.test", fixtures });
    rmSync(dir, { recursive: true });
    expect(stored(later)).toBe(stored(first));
    expect(stored(later)).toContain("https://own.example");
    expect(stored(other)).not.toBe(stored(first));
    const pick = async (app: ReturnType<typeof createApp>) => (await request(app).get("/v2/deployments").expect(200)).text;
    const [one, two] = [await pick(first), await pick(later)];
    expect(one).toContain("http://one.test/agents/");
    expect(two.replaceAll("http://two.test", "http://one.test")).toBe(one);
    expect(two).toContain("https://own.example");
  });

  it("fixture objects passed in are left as they were", () => {
    const entry = { name: "passed-in", source: "github" as const };
    createApp({ seed: 6, fixtures: ["fixtures/organization.json", "fixtures/integrations.json", { deployments: [entry] }] });
    expect(Object.isFrozen(entry)).toBe(false);
  });

  it("generated deployments are coherent: one value per secret name; older revisions come from another commit, image or upload", async () => {
    const app = createApp({ seed: 11, fixtures: ["fixtures/organization.json", "fixtures/integrations.json", { generate: { deployments: { count: 300 } } }] });
    const artifact: Record<string, string> = { github: "repo_commit_sha", external_docker: "image_uri", internal_docker: "image_uri", internal_source: "source_tarball_path" };
    let compared = 0;
    for (let offset = 0; offset < 300; offset += 100) {
      const page = (await request(app).get(`/v2/deployments?limit=100&offset=${offset}`).expect(200)).body.resources;
      for (const d of page) {
        const names = d.secrets.map((x: { name: string }) => x.name);
        expect(new Set(names).size, `${d.name} secrets ${names}`).toBe(names.length);
        const revisions = (await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200)).body.resources;
        const built = revisions.map((r: { source_revision_config: Record<string, string> }) => r.source_revision_config[artifact[d.source] as string]);
        expect(new Set(built).size, `${d.name} (${d.source}) revisions built from ${built}`).toBe(built.length);
        compared += revisions.length - 1;
      }
    }
    expect(compared).toBeGreaterThan(100);
    const versions = (await request(app).get("/v2/deployments?limit=100").expect(200)).body.resources.map((d: { image_version: string }) => d.image_version);
    // Agent-server image versions, as the real service reports them (0.4.46), not any semver.
    for (const version of versions) expect(version).toMatch(/^0\.[2-4]\.\d{1,2}$/);
  });

  it("a generated set is the same for the same seed, in another mock of the process too, and another for another seed", async () => {
    const fixtures = ["fixtures/integrations.json", { generate: { deployments: { count: 250 } } }];
    const pages = async (seed: number) => {
      const app = createApp({ seed, publicUrl: "http://mock.test", fixtures });
      const out: string[] = [];
      for (let offset = 0; offset < 250; offset += 100) out.push((await request(app).get(`/v2/deployments?limit=100&offset=${offset}`).expect(200)).text);
      return out;
    };
    const first = await pages(31);
    expect(first.join("")).toContain('"name"');
    expect(await pages(31)).toEqual(first);
    expect(await pages(32)).not.toEqual(first);
  });

  it("a generated name a fixture entry already has is drawn again", () => {
    const generated = (fixtures: object[]) => {
      const app = createApp({ seed: 5, fixtures: [{ deployments: fixtures, generate: { deployments: { count: 50 } } }] });
      return [...deploymentsIn(contextOf(mockOf(app))).values()].map((stored) => stored.deployment.name);
    };
    // Fixture entries do not change what is generated, up to the first clash.
    const taken = generated([]).find((name) => name.endsWith("-10")) as string;
    const names = generated([{ name: taken, source: "external_docker" }]);
    expect(names).toHaveLength(51);
    expect(new Set(names).size).toBe(51);
    expect(names.filter((name) => name.startsWith(`${taken}-`))).toHaveLength(1);
  });

  it("10,000 generated deployments load, list and reset", async () => {
    const app = createApp({ seed: 9, fixtures: ["fixtures", { generate: { deployments: { count: 10_000 } } }] });
    expect(deploymentsIn(contextOf(mockOf(app))).size).toBe(10_000 + JSON.parse(readFileSync("fixtures/deployments.json", "utf8")).deployments.length);
    await request(app).delete(`/v2/deployments/${(await request(app).get("/v2/deployments?limit=1").expect(200)).body.resources[0].id}`).expect(204);
    mockOf(app).reset();
    const production = JSON.parse(readFileSync("fixtures/deployments.json", "utf8")).deployments.filter((d: { tenant_id: string }) => d.tenant_id === PRODUCTION);
    expect((await request(app).get("/v2/deployments?offset=9990&limit=100").expect(200)).body.offset).toBe(10_000 + production.length);
  });
});

describe("bad deployment fixtures are refused with pointer and reason", () => {
  it("a schema violation points into the entry and its revisions", () => {
    expect(problems({ deployments: [{ name: "a", source: "gitlab" }, { name: "b", status: "LIVE", revisions: [{ status: "DONE" }] }] })).toEqual([
      { pointer: "/deployments/0/source", reason: 'must be one of "github", "external_docker", "internal_docker", "internal_source"; got "gitlab"' },
      { pointer: "/deployments/1/status", reason: 'must be one of "AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"; got "LIVE"' },
      { pointer: "/deployments/1/revisions/0/status", reason: expect.stringMatching(/^must be one of "CREATING", .*; got "DONE"$/) },
    ]);
  });

  it("fixture-only keys are typed too", () => {
    expect(problems({ deployments: [{ name: "a", tag_value_ids: ["x"], revisions: [{ fail_at: "DEPLOYED" }] }] })).toEqual([
      { pointer: "/deployments/0/revisions/0/fail_at", reason: expect.stringContaining('got "DEPLOYED"') },
      { pointer: "/deployments/0/tag_value_ids/0", reason: 'must match format "uuid"; got "x"' },
    ]);
  });

  it("rules of the source, names, tenants and integrations", () => {
    expect(
      problems({
        deployments: [
          { name: "Bad_Name", source: "external_docker" },
          { name: "img", source: "internal_docker", source_revision_config: { image_uri: "a/b:1", langgraph_config_path: "langgraph.json" } },
          { name: "gh", source: "github", source_config: { integration_id: "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f" } },
          { name: "dup", source: "external_docker" },
          { name: "dup", source: "internal_docker" },
          { name: "elsewhere", source: "external_docker", tenant_id: "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f" },
        ],
      }),
    ).toEqual([
      { pointer: "/deployments/0/name", reason: "must match ^[a-z][a-z0-9-]{0,62}$ (lowercase letters, digits and hyphens, starting with a letter)" },
      { pointer: "/deployments/1/source_revision_config/langgraph_config_path", reason: "'source_revision_config.langgraph_config_path' is not applicable for 'internal_docker' source" },
      { pointer: "/deployments/2/source_config/integration_id", reason: "no integration 0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f in the fixtures' integrations" },
      { pointer: "/deployments/4/name", reason: `another deployment of tenant ${PRODUCTION} is named 'dup'` },
      { pointer: "/deployments/5/tenant_id", reason: "no tenant 0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f in the fixtures' tenants" },
    ]);
  });

  it("revisions must agree with the lifecycle and the deployment", () => {
    expect(
      problems({
        deployments: [
          { name: "a", source: "github", revisions: [{ status: "DEPLOYED" }, { status: "BUILDING" }] },
          { name: "b", source: "external_docker", revisions: [{ status: "BUILDING" }] },
          { name: "c", source: "github", revisions: [{ status: "DEPLOYING", fail_at: "BUILDING" }] },
          { name: "d", source: "github", latest_revision_id: "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f", active_revision_id: "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f" },
          { name: "e", source: "internal_docker", fail_next_revision_at: "BUILDING" },
          { name: "f", source: "external_docker", created_at: "2027-01-01T00:00:00.000000+00:00" },
        ],
      }),
    ).toEqual([
      { pointer: "/deployments/0/revisions/1/status", reason: "only the newest revision can be in flight; a newer one interrupts it (use INTERRUPTED)" },
      { pointer: "/deployments/1/revisions/0/status", reason: "a 'external_docker' revision never is BUILDING (image sources skip the build states)" },
      { pointer: "/deployments/2/revisions/0/fail_at", reason: "only the newest revision, in flight and not yet past BUILDING, can fail at it" },
      { pointer: "/deployments/3/latest_revision_id", reason: expect.stringMatching(/^must be the newest revision's id/) },
      { pointer: "/deployments/3/active_revision_id", reason: "must be the id of one of its DEPLOYED revisions, or null" },
      { pointer: "/deployments/4/fail_next_revision_at", reason: "a 'internal_docker' revision never reaches BUILDING (image sources skip the build states)" },
      { pointer: "/deployments/5/created_at", reason: `must be before the clock's start (${CLOCK_START})` },
    ]);
  });

  it("generate.deployments names a known tenant", () => {
    expect(problems({ generate: { deployments: { count: 3, tenant_id: "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f" } } })).toEqual([
      { pointer: "/generate/deployments/tenant_id", reason: "no tenant 0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f in the fixtures' tenants" },
    ]);
  });
});
