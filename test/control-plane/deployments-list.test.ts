import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import request from "supertest";
import type { Express } from "express";
import { createApp } from "../../src/index.js";

const PRODUCTION = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const STAGING = "9b2f4c1e-3d5a-4b7c-8e9f-0a1b2c3d4e5f";
const TAG_TEAM_SUPPORT = "5d0c8a3e-2b1f-4e6d-9a7c-3f2e1d0c9b8a";
const TAG_ENV_PROD = "e7d6c5b4-a392-4817-b6a5-948372615041";

interface FixtureDeployment {
  id: string;
  name: string;
  tenant_id: string;
  tag_value_ids?: string[];
  remote_reconciled?: boolean;
}
const bundled = (JSON.parse(readFileSync(new URL("../../fixtures/deployments.json", import.meta.url), "utf8")) as { deployments: FixtureDeployment[] }).deployments;
const production = bundled.filter((d) => d.tenant_id === PRODUCTION);

interface Listed {
  id: string;
  name: string;
  status: string;
  created_at: string;
  image_version: string | null;
  source_config: { deployment_type: string | null };
}

/** Every deployment a query matches, walked page by page; checks the offsets on the way. */
async function walk(app: Express, query: string, limit: number, tenant?: string): Promise<Listed[]> {
  const out: Listed[] = [];
  for (let offset = 0; ; ) {
    const req = request(app).get(`/v2/deployments?${query}&limit=${limit}&offset=${offset}`);
    const res = await (tenant ? req.set("X-Tenant-Id", tenant) : req).expect(200);
    expect(res.body.offset).toBe(offset + res.body.resources.length);
    out.push(...(res.body.resources as Listed[]));
    if (res.body.resources.length < limit) return out;
    offset = res.body.offset;
  }
}

function newestFirst(a: Listed, b: Listed): number {
  return a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? -1 : 1;
}

describe("GET /v2/deployments: pages", () => {
  // supertest serves each request on a new port: a fixed public URL keeps custom_url comparable.
  const app = createApp({ seed: 42, publicUrl: "http://mock.test" });

  it("answers the first 20, newest first, with the next page's offset", async () => {
    const res = await request(app).get("/v2/deployments").expect("Content-Type", /application\/json/).expect(200);
    expect(Object.keys(res.body)).toEqual(["resources", "offset"]);
    expect(res.body.resources).toHaveLength(20);
    expect(res.body.offset).toBe(20);
    const all = await walk(app, "", 100);
    expect(all).toHaveLength(production.length);
    expect(res.body.resources).toEqual(all.slice(0, 20));
    expect([...all].sort(newestFirst).map((d) => d.id)).toEqual(all.map((d) => d.id));
  });

  it("walks to the end without duplicates or gaps, whatever the page size", async () => {
    const reference = (await walk(app, "", 100)).map((d) => d.id);
    for (const limit of [1, 4, 7, 20]) {
      const ids = (await walk(app, "", limit)).map((d) => d.id);
      expect(ids).toEqual(reference);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(new Set(reference)).toEqual(new Set(production.map((d) => d.id)));
  });

  it("pages and single reads are composed from cached record texts: the same bytes and header res.json writes", async () => {
    for (const path of ["/v2/deployments?limit=5", "/v2/deployments?limit=5", `/v2/deployments/${production[0]!.id}`]) {
      const res = await request(app).get(path).expect(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.text).toBe(JSON.stringify(res.body));
    }
  });

  it("a hosted deployment's cached text follows the origin each client reached (custom_url)", async () => {
    const open = createApp({ seed: 42 });
    const urls = async (host: string) =>
      ((await request(open).get("/v2/deployments?limit=100").set("Host", host).expect(200)).body.resources as { source_config: { custom_url?: string } }[])
        .map((d) => d.source_config.custom_url)
        .filter((u) => u?.includes("/agents/"));
    const first = await urls("localhost:1111");
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((u) => u!.startsWith("http://localhost:1111/agents/"))).toBe(true);
    expect((await urls("127.0.0.1:2222")).every((u) => u!.startsWith("http://127.0.0.1:2222/agents/"))).toBe(true);
    expect(await urls("localhost:1111")).toEqual(first);
  });

  it("an offset past the end gives an empty page and echoes the offset", async () => {
    await request(app).get("/v2/deployments?offset=500").expect(200, { resources: [], offset: 500 });
  });

  it("X-Tenant-Id scopes the list; an unknown workspace is empty", async () => {
    const staging = await walk(app, "", 100, STAGING);
    expect(staging.map((d) => d.name).sort()).toEqual(bundled.filter((d) => d.tenant_id === STAGING).map((d) => d.name).sort());
    expect((await walk(app, "", 100, PRODUCTION.toUpperCase())).length).toBe(production.length);
    await request(app).get("/v2/deployments").set("X-Tenant-Id", "00000000-0000-4000-8000-00000000abcd").expect(200, { resources: [], offset: 0 });
  });

  it("an X-Tenant-Id that is not a UUID is a 422 at the header", async () => {
    const res = await request(app).get("/v2/deployments").set("X-Tenant-Id", "acme").expect(422);
    expect(res.body).toEqual({
      detail: [
        {
          type: "uuid_parsing",
          loc: ["header", "x-tenant-id"],
          msg: "Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `m` at 3",
          input: "acme",
          ctx: { error: "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `m` at 3" },
        },
      ],
    });
  });
});

describe("GET /v2/deployments: filters", () => {
  const app = createApp({ seed: 42 });
  const names = (list: { name: string }[]) => list.map((d) => d.name).sort();

  it("name_contains is a case-insensitive substring; empty means all", async () => {
    const found = await walk(app, "name_contains=SUPPORT", 5);
    expect(names(found)).toEqual(["k8s-support-agent", "legacy-support-bot", "support-agent", "support-agent-canary"]);
    expect(await walk(app, "name_contains=", 100)).toHaveLength(production.length);
    expect(await walk(app, "name_contains=no-such-agent", 100)).toEqual([]);
  });

  it("status is an exact match", async () => {
    expect(names(await walk(app, "status=UNUSED", 100))).toEqual(["legacy-support-bot"]);
    expect(names(await walk(app, "status=AWAITING_DELETE", 100))).toEqual(["sql-agent"]);
    expect(await walk(app, "status=ready", 100)).toEqual([]);
    const ready = await walk(app, "status=READY", 100);
    expect(ready.every((d) => d.status === "READY")).toBe(true);
    expect(ready.length).toBe(production.length - 2);
  });

  it("remote_reconciled matches the flag fixtures set (default false)", async () => {
    const expected = production.filter((d) => d.remote_reconciled).map((d) => d.name).sort();
    expect(names(await walk(app, "remote_reconciled=true", 100))).toEqual(expected);
    expect(await walk(app, "remote_reconciled=false", 100)).toHaveLength(production.length - expected.length);
  });

  it("tag_value_ids is comma-separated and matches any", async () => {
    const tagged = (tag: string) => production.filter((d) => d.tag_value_ids?.includes(tag)).map((d) => d.name).sort();
    expect(names(await walk(app, `tag_value_ids=${TAG_ENV_PROD}`, 100))).toEqual(tagged(TAG_ENV_PROD));
    const either = [...new Set([...tagged(TAG_ENV_PROD), ...tagged(TAG_TEAM_SUPPORT)])].sort();
    expect(names(await walk(app, `tag_value_ids=${TAG_ENV_PROD},${TAG_TEAM_SUPPORT.toUpperCase()}`, 2))).toEqual(either);
    expect(either.length).toBeGreaterThan(tagged(TAG_ENV_PROD).length);
  });

  it("image_version and deployment_type are exact matches", async () => {
    const old = await walk(app, "image_version=0.4.41", 100);
    expect(names(old)).toEqual(["react-agent", "react-agent-free"]);
    const free = await walk(app, "deployment_type=dev_free", 100);
    expect(names(free)).toContain("react-agent-free");
    expect(free.every((d) => d.source_config.deployment_type === "dev_free")).toBe(true);
    const prod = await walk(app, "deployment_type=prod", 100);
    expect(prod.length).toBeGreaterThan(3);
    expect(prod.every((d) => d.source_config.deployment_type === "prod")).toBe(true);
  });

  it("deployment_ids is comma-separated and matches any (another tenant's ids match nothing)", async () => {
    const [a, b] = production;
    const staging = bundled.find((d) => d.tenant_id === STAGING) as FixtureDeployment;
    const found = await walk(app, `deployment_ids=${a?.id}, ${b?.id?.toUpperCase()},${staging.id}`, 100);
    expect(names(found)).toEqual([a?.name, b?.name].sort());
  });

  it("filters combine (all must hold) and page like the unfiltered list", async () => {
    const all = await walk(app, "", 100);
    const combined = await walk(app, "name_contains=agent&deployment_type=prod&status=READY", 2);
    const expected = all.filter((d) => d.name.includes("agent") && d.source_config.deployment_type === "prod" && d.status === "READY");
    expect(combined.map((d) => d.id)).toEqual(expected.map((d) => d.id));
    expect(combined.length).toBeGreaterThan(2);
    const narrow = await walk(app, `name_contains=support&image_version=0.4.46&remote_reconciled=true&tag_value_ids=${TAG_ENV_PROD}`, 100);
    expect(names(narrow)).toEqual(["k8s-support-agent", "support-agent"]);
  });
});

describe("GET /v2/deployments: invalid parameters are 422 with loc at the parameter", () => {
  const app = createApp({ seed: 42 });
  const cases: [string, object][] = [
    ["limit=0", { type: "greater_than_equal", loc: ["query", "limit"], msg: "Input should be greater than or equal to 1", input: 0, ctx: { ge: 1 } }],
    ["limit=101", { type: "less_than_equal", loc: ["query", "limit"], msg: "Input should be less than or equal to 100", input: 101, ctx: { le: 100 } }],
    ["limit=ten", { type: "int_parsing", loc: ["query", "limit"], msg: "Input should be a valid integer, unable to parse string as an integer", input: "ten" }],
    ["offset=-1", { type: "greater_than_equal", loc: ["query", "offset"], msg: "Input should be greater than or equal to 0", input: -1, ctx: { ge: 0 } }],
    ["remote_reconciled=maybe", { type: "bool_parsing", loc: ["query", "remote_reconciled"], msg: "Input should be a valid boolean, unable to interpret input", input: "maybe" }],
    ["deployment_type=serverless", { type: "enum", loc: ["query", "deployment_type"], msg: "Input should be 'dev_free', 'dev' or 'prod'", input: "serverless", ctx: { expected: "'dev_free', 'dev' or 'prod'" } }],
  ];
  for (const [query, issue] of cases) {
    it(query, async () => {
      await request(app).get(`/v2/deployments?${query}`).expect(422, { detail: [issue] });
    });
  }

  it("reports every bad parameter at once", async () => {
    const res = await request(app).get("/v2/deployments?limit=0&offset=-5").expect(422);
    expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([["query", "limit"], ["query", "offset"]]);
  });
});

describe("GET /v2/deployments with generated deployments", () => {
  const app = createApp({ seed: 42, fixtures: ["fixtures", { generate: { deployments: { count: 500 } } }] });

  it("lists fixtures and generated records together, walkable to the end", async () => {
    const all = await walk(app, "", 100);
    expect(all).toHaveLength(production.length + 500);
    expect(new Set(all.map((d) => d.id)).size).toBe(all.length);
    expect([...all].sort(newestFirst).map((d) => d.id)).toEqual(all.map((d) => d.id));
  });

  it("filters generated records like fixture ones", async () => {
    const all = await walk(app, "", 100);
    const version = all[all.length - 1]?.image_version as string;
    const filtered = await walk(app, `image_version=${version}&deployment_type=dev&name_contains=A`, 7);
    const expected = all.filter((d) => d.image_version === version && d.source_config.deployment_type === "dev" && d.name.includes("a"));
    expect(filtered.map((d) => d.id)).toEqual(expected.map((d) => d.id));
    expect(filtered.length).toBeGreaterThan(0);
  });

  it("name_contains matches within one name, alone or with other filters, at any depth", async () => {
    const all = await walk(app, "", 100);
    const [first, last] = [all[0] as Listed, all[all.length - 1] as Listed];
    for (const needle of ["a", "-1", last.name, `${first.name.slice(-3)}\n${(all[1] as Listed).name.slice(0, 3)}`]) {
      const expected = all.filter((d) => d.name.includes(needle)).map((d) => d.id);
      expect((await walk(app, `name_contains=${encodeURIComponent(needle)}`, 40)).map((d) => d.id)).toEqual(expected);
      const ready = all.filter((d) => d.status === "READY" && d.name.includes(needle)).map((d) => d.id);
      expect((await walk(app, `name_contains=${encodeURIComponent(needle)}&status=READY`, 40)).map((d) => d.id)).toEqual(ready);
    }
  });

  it("generate.deployments.tenant_id puts them in another workspace", async () => {
    const other = createApp({ seed: 42, fixtures: ["fixtures", { generate: { deployments: { count: 30, tenant_id: STAGING } } }] });
    expect(await walk(other, "", 100)).toHaveLength(production.length);
    expect(await walk(other, "", 100, STAGING)).toHaveLength(bundled.length - production.length + 30);
  });
});

describe("determinism", () => {
  it("the same seed gives byte-identical responses", async () => {
    const options = { seed: 7, publicUrl: "http://mock.test", fixtures: ["fixtures", { generate: { deployments: { count: 200 } } }] };
    const [a, b] = [createApp(options), createApp(options)];
    for (const path of ["/v2/deployments?limit=100", "/v2/deployments?offset=150&limit=100&name_contains=e"]) {
      const [ra, rb] = [await request(a).get(path), await request(b).get(path)];
      expect(ra.text).toBe(rb.text);
      expect(ra.text.length).toBeGreaterThan(1000);
    }
    const other = await request(createApp({ ...options, seed: 8 })).get("/v2/deployments?limit=100");
    expect(other.text).not.toBe((await request(a).get("/v2/deployments?limit=100")).text);
  });
});
