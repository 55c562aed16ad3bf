import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import type { Express } from "express";
import { createApp, mockOf } from "../../src/index.js";

/**
 * The per-tenant index (names for uniqueness, newest-first order for lists) is kept up to date by
 * each write instead of being rebuilt; these check it agrees with the records after every kind of
 * write, and after reset() puts an older state back.
 */
const body = (name: string) => ({ name, source: "internal_source", source_config: { deployment_type: "prod" }, source_revision_config: { langgraph_config_path: "langgraph.json" }, secrets: [] });

/** An image deployment: the timed lifecycle takes it to READY on its own. */
const image = (name: string) => ({ name, source: "internal_docker", source_config: {}, source_revision_config: { image_uri: "acme/agent:1" }, secrets: [] });

interface Listed { id: string; name: string; created_at: string; status: string }

async function all(app: Express): Promise<Listed[]> {
  return (await request(app).get("/v2/deployments?limit=100").expect(200)).body.resources as Listed[];
}

/** created_at descending, then id ascending (the list order). */
function sorted(list: Listed[]): Listed[] {
  return [...list].sort((a, b) => (a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? -1 : 1));
}

describe("deployment index: names and list order follow every write", () => {
  let app: Express;
  beforeAll(() => {
    app = createApp({ seed: 7, fixtures: [{ generate: { deployments: { count: 30 } } }] });
  });
  beforeEach(() => mockOf(app).reset());

  it("creates after a list land in order, and their names are taken at once", async () => {
    const before = await all(app);
    const created: string[] = [];
    for (let i = 0; i < 12; i++) created.push((await request(app).post("/v2/deployments").send(body(`indexed-${i}`)).expect(201)).body.id);
    const after = await all(app);
    expect(after).toHaveLength(before.length + 12);
    expect(after.map((d) => d.id)).toEqual(sorted(after).map((d) => d.id));
    expect(new Set(after.map((d) => d.id))).toEqual(new Set([...before.map((d) => d.id), ...created]));
    await request(app).post("/v2/deployments").send(body("indexed-3")).expect(409);
    // The name filter searches the index's name text, which must follow the creates too.
    const named = (await request(app).get("/v2/deployments?name_contains=indexed-1&limit=100").expect(200)).body.resources as Listed[];
    expect(named.map((d) => d.name).sort()).toEqual(["indexed-1", "indexed-10", "indexed-11"]);
  });

  it("creates with no read between them (the clock standing still: each one's place is by id) land in order, also when they change or one is deleted before the next read", async () => {
    // Its own app: the timed lifecycle moves each new deployment's status when the clock moves.
    const app = createApp({ seed: 7, lifecycle: "timed", lifecycleStep: "1m", fixtures: [{ generate: { deployments: { count: 30 } } }] });
    const before = await all(app);
    const created: string[] = [];
    let createdAs = "";
    // Enough that more wait to be sorted in than are spliced in one by one (inOrder's merge).
    for (let i = 0; i < 40; i++) {
      const d = (await request(app).post("/v2/deployments").send(image(`unread-${i}`)).expect(201)).body as Listed;
      created.push(d.id);
      createdAs = d.status;
    }
    // Before any list: updates find their deployments' places (those appended and those waiting to be
    // sorted in), a delete removes one, the names follow.
    for (const id of created) await request(app).patch(`/v2/deployments/${id}`).send({ secrets: [{ name: `CHANGED_${id.slice(0, 4)}`, value: "1" }], source_revision_config: { image_uri: "acme/agent:2" } }).expect(200);
    await request(app).delete(`/v2/deployments/${created[9]}`).expect(204);
    mockOf(app).clock.advance("1h");
    await request(app).post("/v2/deployments").send(image("unread-3")).expect(409);
    await request(app).post("/v2/deployments").send(image("unread-9")).expect(201);
    const after = (await request(app).get("/v2/deployments?limit=100").expect(200)).body.resources as (Listed & { secrets: { name: string }[] })[];
    expect(after).toHaveLength(before.length + 40);
    expect(after.map((d) => d.id)).toEqual(sorted(after).map((d) => d.id));
    expect(after.map((d) => d.id)).not.toContain(created[9]);
    for (const id of created.filter((_, i) => i !== 9)) expect(after.find((d) => d.id === id)!.secrets).toEqual([{ name: `CHANGED_${id.slice(0, 4)}`, value: "1" }]);
    const updated = after.find((d) => d.id === created[5])!;
    expect(updated.status).not.toBe(createdAs);
    expect(updated.status).toBe((await request(app).get(`/v2/deployments/${created[5]}`).expect(200)).body.status);
    // Filters that read the order: a name filter through the name text, a status filter through its list.
    const named = (await request(app).get("/v2/deployments?name_contains=unread-1&limit=100").expect(200)).body.resources as Listed[];
    expect(named.map((d) => d.id)).toEqual(after.filter((d) => d.name.includes("unread-1")).map((d) => d.id));
    expect(named).toHaveLength(11);
    const status = after[0]!.status;
    const withStatus = (await request(app).get(`/v2/deployments?status=${status}&limit=100`).expect(200)).body.resources as Listed[];
    expect(withStatus.map((d) => d.id)).toEqual(after.filter((d) => d.status === status).map((d) => d.id));
  });

  it("a PATCH keeps the deployment in its place with its new content", async () => {
    const [, second] = await all(app);
    await request(app).patch(`/v2/deployments/${second!.id}`).send({ secrets: [{ name: "PATCHED", value: "1" }] }).expect(200);
    const after = (await request(app).get("/v2/deployments?limit=100").expect(200)).body.resources as { id: string; secrets: { name: string }[] }[];
    expect(after[1]!.id).toBe(second!.id);
    expect(after[1]!.secrets).toEqual([{ name: "PATCHED", value: "1" }]);
    expect(after.map((d) => d.id)).toEqual(sorted(after as unknown as Listed[]).map((d) => d.id));
  });

  it("a deleted deployment leaves the list and frees its name", async () => {
    const created = (await request(app).post("/v2/deployments").send(body("short-lived")).expect(201)).body as Listed;
    await request(app).delete(`/v2/deployments/${created.id}`).expect(204);
    expect((await all(app)).map((d) => d.id)).not.toContain(created.id);
    expect((await request(app).get("/v2/deployments?name_contains=short-lived").expect(200)).body.resources).toEqual([]);
    await request(app).post("/v2/deployments").send(body("short-lived")).expect(201);
  });

  it("reset() brings back the list and the names of the start", async () => {
    const start = await all(app);
    await request(app).post("/v2/deployments").send(body("after-start")).expect(201);
    await request(app).delete(`/v2/deployments/${start[0]!.id}`).expect(204);
    mockOf(app).reset();
    expect((await all(app)).map((d) => [d.id, d.name])).toEqual(start.map((d) => [d.id, d.name]));
    await request(app).post("/v2/deployments").send(body("after-start")).expect(201);
    await request(app).post("/v2/deployments").send(body(start[0]!.name)).expect(409);
  });

  it("status filters page through the same deployments as a filter over the whole list, after every kind of write", async () => {
    /** Every page of `query` (limit 4), walked by offset. */
    async function walk(query: string): Promise<string[]> {
      const out: string[] = [];
      for (let offset = 0; ; ) {
        const page = (await request(app).get(`/v2/deployments?${query}&limit=4&offset=${offset}`).expect(200)).body as { resources: Listed[]; offset: number };
        out.push(...page.resources.map((d) => d.id));
        if (page.resources.length < 4) return out;
        offset = page.offset;
      }
    }
    async function agrees(): Promise<void> {
      const list = await all(app);
      const statuses = [...new Set(list.map((d) => d.status)), "NO_SUCH_STATUS"];
      expect(statuses.length).toBeGreaterThan(2);
      for (const status of statuses) {
        expect(await walk(`status=${status}`)).toEqual(list.filter((d) => d.status === status).map((d) => d.id));
        expect(await walk(`status=${status}&name_contains=e`)).toEqual(list.filter((d) => d.status === status && d.name.includes("e")).map((d) => d.id));
      }
    }
    // Read first, so the writes below must update what the reads built.
    await agrees();
    for (let i = 0; i < 6; i++) await request(app).post("/v2/deployments").send(body(`status-${i}`)).expect(201);
    await agrees();
    const [first] = await all(app);
    await request(app).delete(`/v2/deployments/${first!.id}`).expect(204);
    await agrees();
    mockOf(app).reset();
    await agrees();
  });
});
