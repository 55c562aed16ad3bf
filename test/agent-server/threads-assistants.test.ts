import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp } from "../../src/index.js";
import { uuid5, uuidBytes } from "../../src/core/random.js";
import { expectFits } from "../support/schema-assert.js";

const AGENT_ID = "fe096781-5601-53d2-b2f6-0d3403f7e9ca";

function app(extra: Record<string, unknown> = {}) {
  return createApp({ seed: 5, fixtures: false, scenarios: [{ name: "s", graph_id: "weather-bot", events: [{ event: "values", data: { done: true } }] }], ...extra });
}

describe("threads", () => {
  it("creates, reads, searches and deletes threads in the real shapes", async () => {
    const a = app();
    const created = (await request(a).post("/threads").send({ metadata: { user: "alice", tier: { plan: "pro" } } }).expect(200)).body;
    expect(created).toEqual({
      thread_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: "2026-01-15T09:00:00.000000+00:00",
      updated_at: "2026-01-15T09:00:00.000000+00:00",
      state_updated_at: "2026-01-15T09:00:00.000000+00:00",
      metadata: { user: "alice", tier: { plan: "pro" } },
      status: "idle",
      config: {},
      values: null,
      interrupts: {},
    });
    expectFits("agent-server/thread.json#/$defs/Thread", created);
    const bob = (await request(a).post("/threads").send({ metadata: { user: "bob" } })).body;
    expect((await request(a).get(`/threads/${created.thread_id}`).expect(200)).body).toEqual(created);

    const search = async (body: object) => (await request(a).post("/threads/search").send(body).expect(200)).body.map((t: { thread_id: string }) => t.thread_id);
    // Newest first: bob was created last (both at the same instant on the seeded clock).
    expect(await search({})).toEqual([bob.thread_id, created.thread_id]);
    expect(await search({ metadata: { tier: { plan: "pro" } } })).toEqual([created.thread_id]);
    expect(await search({ status: "busy" })).toEqual([]);
    expect(await search({ limit: 1, offset: 1, sort_by: "thread_id", sort_order: "asc" })).toEqual([[bob.thread_id, created.thread_id].sort()[1]]);
    expect((await request(a).post("/threads/search").send({ select: ["thread_id", "status"], ids: [bob.thread_id] })).body).toEqual([{ thread_id: bob.thread_id, status: "idle" }]);
    await request(a).post("/threads/search").send({ limit: 0 }).expect(422, { detail: "0 must be >= 1 (at /limit)" });

    await request(a).delete(`/threads/${bob.thread_id}`).expect(204);
    await request(a).get(`/threads/${bob.thread_id}`).expect(404, { detail: "Not Found" });
  });

  it("if_exists raise answers 409, do_nothing returns the existing thread", async () => {
    const a = app();
    const id = "2b4fd7a1-5b77-4c4e-8f10-aaaaaaaaaaaa";
    await request(a).post("/threads").send({ thread_id: id, metadata: { n: 1 } }).expect(200);
    await request(a).post("/threads").send({ thread_id: id }).expect(409, { detail: "Conflict" });
    expect((await request(a).post("/threads").send({ thread_id: id, if_exists: "do_nothing", metadata: { n: 2 } }).expect(200)).body.metadata).toEqual({ n: 1 });
    await request(a).get("/threads/nope").expect(422, { detail: "Invalid thread ID: must be a UUID" });
  });

  it("an empty thread's state has no checkpoint and no metadata yet (null, as the Python server); a run's final values become the state", async () => {
    const a = app();
    const { thread_id } = (await request(a).post("/threads").send({})).body;
    expect((await request(a).get(`/threads/${thread_id}/state`).expect(200)).body).toEqual({
      values: {},
      next: [],
      tasks: [],
      checkpoint: null,
      metadata: null,
      created_at: null,
      parent_checkpoint: null,
      interrupts: [],
    });
    await request(a).post(`/threads/${thread_id}/runs/wait`).send({ assistant_id: "weather-bot" }).expect(200, { done: true });
    const state = (await request(a).get(`/threads/${thread_id}/state`)).body;
    expect(state.values).toEqual({ done: true });
    expect(state.checkpoint.checkpoint_id).toMatch(/^[0-9a-f-]{36}$/);
    expectFits("agent-server/thread.json#/$defs/ThreadState", state);
  });
});

describe("assistants", () => {
  it("serves one default assistant per graph: agent and each graph the scenarios name", async () => {
    const a = app();
    const all = (await request(a).post("/assistants/search").send({ sort_by: "name", sort_order: "asc" }).expect(200)).body;
    expect(all.map((x: { graph_id: string; assistant_id: string }) => [x.graph_id, x.assistant_id])).toEqual([
      ["agent", AGENT_ID],
      ["weather-bot", uuid5("weather-bot", uuidBytes("6ba7b821-9dad-11d1-80b4-00c04fd430c8"))],
    ]);
    expect(all[0]).toEqual({
      assistant_id: AGENT_ID,
      graph_id: "agent",
      config: {},
      context: {},
      created_at: "2026-01-15T09:00:00.000000+00:00",
      updated_at: "2026-01-15T09:00:00.000000+00:00",
      metadata: { created_by: "system" },
      version: 1,
      name: "agent",
      description: null,
    });
    for (const x of all) expectFits("agent-server/assistant.json#/$defs/Assistant", x);
    expect((await request(a).post("/assistants/search").send({ name: "WEATHER" })).body.map((x: { name: string }) => x.name)).toEqual(["weather-bot"]);
    expect((await request(a).post("/assistants/search").send({ metadata: { created_by: "user" } })).body).toEqual([]);
    await request(a).get(`/assistants/${AGENT_ID}`).expect(200);
    await request(a).get("/assistants/agent").expect(422, { detail: "Invalid assistant ID: must be a UUID" });
    await request(a).get("/assistants/7d6a7b54-0c9e-4a1e-9d0e-555555555555").expect(404);
  });
});

describe("the agent server's edges", () => {
  it("needs X-Api-Key when one is configured (403 as the real server), but not on /ok and /info", async () => {
    const a = app({ apiKey: "secret" });
    await request(a).post("/threads").send({}).expect(403, { detail: "Missing authentication headers" });
    await request(a).post("/threads").set("x-api-key", "wrong").send({}).expect(403, { detail: "Invalid token" });
    await request(a).post("/threads").set("x-api-key", "secret").send({}).expect(200);
    await request(a).get("/ok").expect(200, { ok: true });
    expect((await request(a).get("/info").expect(200)).body).toMatchObject({ version: expect.any(String), flags: { assistants: true } });
  });

  it("answers browser preflights and exposes the headers the SDK reads", async () => {
    const a = app({ apiKey: "secret" });
    const pre = await request(a).options("/threads/x/runs/stream").set("Origin", "http://localhost:3000").set("Access-Control-Request-Method", "POST").set("Access-Control-Request-Headers", "content-type,x-api-key").expect(200);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
    expect(pre.headers["access-control-allow-headers"]).toBe("content-type,x-api-key");
    const res = await request(a).get("/ok").set("Origin", "http://localhost:3000").expect(200);
    expect(res.headers["access-control-expose-headers"]).toContain("Content-Location");
  });

  it("leaves other paths to the global 404 and wrong methods to 405", async () => {
    const a = app();
    await request(a).get("/nothing").expect(404, { detail: "Not Found" });
    const res = await request(a).put("/threads").send({}).expect(405, { detail: "Method Not Allowed" });
    expect(res.headers.allow).toContain("POST");
  });
});
