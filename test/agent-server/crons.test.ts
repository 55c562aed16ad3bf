import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@langchain/langgraph-sdk";
import { BUNDLED_SCENARIOS, mockOf, startMockServer, type MockServer } from "../../src/index.js";
import { appForFile } from "../support/app-presets.js";
import { newThread as makeThread } from "../support/agent-server.js";
import { IDS } from "../support/ids.js";

// The mock's seeded clock starts at 2026-01-15T09:00:00Z (a Thursday). Reset before each test.
const app = appForFile("agentServer", { scenarios: [BUNDLED_SCENARIOS] });
const mock = mockOf(app);
const AGENT = IDS.agentAssistant;
const MISSING = IDS.missing;
const CRON_KEYS = ["assistant_id", "created_at", "cron_id", "enabled", "end_time", "metadata", "next_run_date", "on_run_completed", "payload", "schedule", "thread_id", "timezone", "updated_at", "user_id"];
const digest = { messages: [{ role: "user", content: "Compile the nightly digest" }] };

const newThread = () => makeThread(app);
const threadCron = async (threadId: string, body: object) => (await request(app).post(`/threads/${threadId}/runs/crons`).send(body).expect(200)).body;
const statelessCron = async (body: object) => (await request(app).post("/runs/crons").send(body).expect(200)).body;
const runsOf = async (threadId: string) => (await request(app).get(`/threads/${threadId}/runs`).expect(200)).body as { run_id: string; metadata: object; kwargs: Record<string, unknown>; created_at: string; multitask_strategy: string }[];

describe("crons over HTTP", () => {
  it("a cron on a thread: the Cron shape, payload with the resolved assistant and configurable.cron_id, next_run_date", async () => {
    const threadId = await newThread();
    const cron = await threadCron(threadId, { assistant_id: "agent", schedule: "*/15 * * * *", input: digest, metadata: { team: "ops" } });
    expect(Object.keys(cron).sort()).toEqual(CRON_KEYS);
    expect(cron).toMatchObject({
      assistant_id: AGENT,
      thread_id: threadId,
      on_run_completed: null,
      end_time: null,
      schedule: "*/15 * * * *",
      timezone: null,
      created_at: "2026-01-15T09:00:00.000000+00:00",
      updated_at: "2026-01-15T09:00:00.000000+00:00",
      user_id: null,
      next_run_date: "2026-01-15T09:15:00.000000+00:00",
      metadata: { team: "ops" },
      enabled: true,
    });
    expect(cron.cron_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(cron.payload).toEqual({ assistant_id: AGENT, schedule: "*/15 * * * *", input: digest, metadata: { team: "ops" }, config: { configurable: { cron_id: cron.cron_id } } });
  });

  it("a stateless cron: no thread, on_run_completed defaults to delete; timezone and end_time are kept", async () => {
    const cron = await statelessCron({ assistant_id: AGENT, schedule: "0 9 * * *", timezone: "America/New_York", end_time: "2026-02-01T00:00:00Z" });
    expect(cron).toMatchObject({ thread_id: null, on_run_completed: "delete", timezone: "America/New_York", end_time: "2026-02-01T00:00:00.000000+00:00" });
    // 09:00 in New York is 14:00 UTC, still ahead today.
    expect(cron.next_run_date).toBe("2026-01-15T14:00:00.000000+00:00");
    expect((await statelessCron({ assistant_id: "agent", schedule: "@daily", on_run_completed: "keep" })).on_run_completed).toBe("keep");
  });

  it("refuses what the real server refuses, in its words", async () => {
    const threadId = await newThread();
    const missing = MISSING;
    const cases: [string, object, number, string][] = [
      [`/threads/${missing}/runs/crons`, { assistant_id: "agent", schedule: "* * * * *" }, 404, `Thread with ID '${missing}' not found. Please verify the ID is correct and the thread hasn't been deleted or expired.`],
      [
        "/runs/crons",
        { assistant_id: "agent", schedule: "every day" },
        422,
        "Invalid cron schedule: 'every day'. Reason: Invalid cron schedule. Ensure the schedule uses the standard cron format (minute hour day_of_month month day_of_week). Example: '*/5 * * * *' for every 5 minutes.",
      ],
      [`/threads/${threadId}/runs/crons`, { assistant_id: "agent", schedule: "61 * * * *" }, 422, expect.stringContaining("Invalid cron schedule: '61 * * * *'") as unknown as string],
      ["/runs/crons", { assistant_id: "agent", schedule: "0 0 9 * * *" }, 422, expect.stringContaining("Invalid cron schedule") as unknown as string],
      ["/runs/crons", { assistant_id: "agent", schedule: "0 9 * * *", timezone: "Mars/Olympus" }, 422, "Invalid timezone: 'Mars/Olympus'. Use an IANA timezone such as 'America/New_York'."],
      ["/runs/crons", { assistant_id: "agent" }, 422, "'schedule' is a required property"],
      // A leap second passes the date-time format but no Date reads it.
      ["/runs/crons", { assistant_id: "agent", schedule: "* * * * *", end_time: "2026-12-31T23:59:60Z" }, 422, `'2026-12-31T23:59:60Z' is not a "date-time" (at /end_time)`],
      ["/runs/crons", { assistant_id: "no-such-graph", schedule: "* * * * *" }, 422, expect.stringContaining("Invalid assistant: 'no-such-graph'") as unknown as string],
      ["/threads/not-a-uuid/runs/crons", { assistant_id: "agent", schedule: "* * * * *" }, 422, "Invalid thread ID: must be a UUID"],
    ];
    for (const [path, body, status, detail] of cases) {
      const res = await request(app).post(path).send(body);
      expect([path, res.status, res.body]).toEqual([path, status, { detail }]);
    }
    expect((await request(app).post("/runs/crons/search").send({})).body).toEqual([]);
    expect((await request(app).patch("/runs/crons/nope").send({})).body).toEqual({ detail: "Invalid cron ID: must be a UUID" });
    expect((await request(app).delete(`/runs/crons/${missing}`).expect(404)).body).toEqual({ detail: "Not Found" });
    expect((await request(app).patch(`/runs/crons/${missing}`).send({ enabled: false }).expect(404)).body).toEqual({ detail: "Not Found" });
  });

  it("search: assistant_id, thread_id and enabled filters, sort_by/sort_order, select, limit/offset with X-Pagination headers", async () => {
    const [t1, t2] = [await newThread(), await newThread()];
    const a = await threadCron(t1, { assistant_id: "agent", schedule: "0 12 * * *" });
    mock.clock.advance("1s");
    const b = await threadCron(t2, { assistant_id: "agent", schedule: "0 10 * * *", enabled: false });
    mock.clock.advance("1s");
    const c = await statelessCron({ assistant_id: "agent", schedule: "0 11 * * *" });
    const search = async (body: object) => {
      const res = await request(app).post("/runs/crons/search").send(body).expect(200);
      return { ids: res.body.map((x: { cron_id: string }) => x.cron_id), total: res.headers["x-pagination-total"], next: res.headers["x-pagination-next"], body: res.body };
    };
    // Newest first by default.
    expect(await search({})).toMatchObject({ ids: [c.cron_id, b.cron_id, a.cron_id], total: "3", next: undefined });
    expect((await search({ thread_id: t1 })).ids).toEqual([a.cron_id]);
    expect((await search({ assistant_id: AGENT, enabled: false })).ids).toEqual([b.cron_id]);
    expect((await search({ enabled: true })).ids).toEqual([c.cron_id, a.cron_id]);
    expect((await search({ assistant_id: MISSING })).ids).toEqual([]);
    expect((await search({ sort_by: "next_run_date", sort_order: "asc" })).ids).toEqual([b.cron_id, c.cron_id, a.cron_id]);
    expect(await search({ limit: 2 })).toMatchObject({ ids: [c.cron_id, b.cron_id], total: "3", next: "2" });
    expect(await search({ limit: 2, offset: 2 })).toMatchObject({ ids: [a.cron_id], total: "3", next: undefined });
    expect((await search({ select: ["cron_id", "next_run_date"], sort_order: "asc" })).body).toEqual([
      { cron_id: a.cron_id, next_run_date: "2026-01-15T12:00:00.000000+00:00" },
      { cron_id: b.cron_id, next_run_date: "2026-01-15T10:00:00.000000+00:00" },
      { cron_id: c.cron_id, next_run_date: "2026-01-15T11:00:00.000000+00:00" },
    ]);
    const bad = await request(app).post("/runs/crons/search").send({ select: ["nope"] }).expect(422);
    expect(bad.body.detail).toContain('"nope" is not one of');
  });

  it("count: all, by thread, by assistant", async () => {
    const threadId = await newThread();
    await threadCron(threadId, { assistant_id: "agent", schedule: "0 12 * * *" });
    await statelessCron({ assistant_id: "agent", schedule: "0 12 * * *" });
    const count = async (body: object) => (await request(app).post("/runs/crons/count").send(body).expect(200)).body;
    expect(await count({})).toBe(2);
    expect(await count({ thread_id: threadId })).toBe(1);
    expect(await count({ assistant_id: AGENT })).toBe(2);
    expect(await count({ assistant_id: MISSING })).toBe(0);
  });

  it("patch: a new schedule counts from now, metadata merges, run fields change what the next firing sends", async () => {
    const threadId = await newThread();
    const cron = await threadCron(threadId, { assistant_id: "agent", schedule: "0 12 * * *", input: { messages: [{ role: "user", content: "hello there" }] }, metadata: { a: 1, b: 1 } });
    mock.clock.advance("1m");
    const patched = (await request(app).patch(`/runs/crons/${cron.cron_id}`).send({ schedule: "30 9 * * *", metadata: { b: 2 }, input: digest }).expect(200)).body;
    expect(patched).toMatchObject({ schedule: "30 9 * * *", next_run_date: "2026-01-15T09:30:00.000000+00:00", metadata: { a: 1, b: 2 }, updated_at: "2026-01-15T09:01:00.000000+00:00", created_at: cron.created_at });
    expect(patched.payload).toMatchObject({ input: digest, metadata: { a: 1, b: 2 }, config: { configurable: { cron_id: cron.cron_id } } });
    mock.clock.advance("30m");
    const [run] = await runsOf(threadId);
    expect(run!.metadata).toEqual({ created_by: "system", graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca", a: 1, b: 2 });
    expect(mock.run(run!.run_id).scenario).toBe("nightly-digest");
    const bad = await request(app).patch(`/runs/crons/${cron.cron_id}`).send({ schedule: "nope" }).expect(422);
    expect(bad.body.detail).toContain("Invalid cron schedule: 'nope'");
  });

  it("delete answers 204; the cron no longer fires, is not found again, and deleting its thread deletes a thread cron", async () => {
    const threadId = await newThread();
    const cron = await threadCron(threadId, { assistant_id: "agent", schedule: "*/5 * * * *", input: digest });
    const res = await request(app).delete(`/runs/crons/${cron.cron_id}`).expect(204);
    expect(res.text).toBe("");
    await request(app).delete(`/runs/crons/${cron.cron_id}`).expect(404);
    mock.clock.advance("10m");
    expect(await runsOf(threadId)).toEqual([]);

    const other = await newThread();
    await threadCron(other, { assistant_id: "agent", schedule: "*/5 * * * *", input: digest });
    expect((await request(app).post("/runs/crons/count").send({})).body).toBe(1);
    await request(app).delete(`/threads/${other}`).expect(204);
    expect((await request(app).post("/runs/crons/count").send({})).body).toBe(0);
  });

  it("advancing the clock past the schedule starts a background run on the thread, as the client would have", async () => {
    const threadId = await newThread();
    const cron = await threadCron(threadId, { assistant_id: "agent", schedule: "0 7 * * *", input: digest, metadata: { source: "cron" }, config: { tags: ["nightly"] } });
    expect(cron.next_run_date).toBe("2026-01-16T07:00:00.000000+00:00");
    mock.clock.advance("21h59m");
    expect(await runsOf(threadId)).toEqual([]);
    mock.clock.advance("1m");
    const runs = await runsOf(threadId);
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run).toMatchObject({ created_at: "2026-01-16T07:00:00.000000+00:00", metadata: { source: "cron" }, multitask_strategy: "enqueue" });
    expect(run.kwargs).toMatchObject({ input: digest, config: { tags: ["nightly"], configurable: { cron_id: cron.cron_id, thread_id: threadId, assistant_id: AGENT, graph_id: "agent" } } });
    // The run plays the scenario its input matches, like any run.
    const values = (await request(app).get(`/threads/${threadId}/runs/${run.run_id}/join`).expect(200)).body;
    expect(values.digest).toEqual({ generated_at: "2026-01-16T07:00:00.000000+00:00", sections: ["inbox", "calendar", "tickets"] });
    expect(mock.run(run.run_id)).toMatchObject({ scenario: "nightly-digest", status: "success", route: `CRON ${cron.cron_id}` });
    const after = (await request(app).post("/runs/crons/search").send({})).body[0];
    expect(after.next_run_date).toBe("2026-01-17T07:00:00.000000+00:00");
  });

  it("a jump over several scheduled times fires once and moves next_run_date past now (the real scheduler's catch-up)", async () => {
    const threadId = await newThread();
    await threadCron(threadId, { assistant_id: "agent", schedule: "0 * * * *", input: digest });
    mock.clock.advance("5h30m");
    expect(await runsOf(threadId)).toHaveLength(1);
    expect((await request(app).post("/runs/crons/search").send({})).body[0].next_run_date).toBe("2026-01-15T15:00:00.000000+00:00");
    mock.clock.set("2026-01-15T15:00:00Z");
    expect(await runsOf(threadId)).toHaveLength(2);
  });

  it("end_time stops firing; a disabled cron does not fire; one switched back on counts from then", async () => {
    const [t1, t2] = [await newThread(), await newThread()];
    await threadCron(t1, { assistant_id: "agent", schedule: "0 * * * *", input: digest, end_time: "2026-01-15T11:30:00Z" });
    const paused = await threadCron(t2, { assistant_id: "agent", schedule: "0 * * * *", input: digest, enabled: false });
    for (let i = 0; i < 4; i++) mock.clock.advance("1h");
    // 10:00 and 11:00 fired; 12:00 and 13:00 are past end_time.
    expect((await runsOf(t1)).map((r) => r.created_at)).toEqual(["2026-01-15T11:00:00.000000+00:00", "2026-01-15T10:00:00.000000+00:00"]);
    expect(await runsOf(t2)).toEqual([]);
    const resumed = (await request(app).patch(`/runs/crons/${paused.cron_id}`).send({ enabled: true }).expect(200)).body;
    expect(resumed).toMatchObject({ enabled: true, next_run_date: "2026-01-15T14:00:00.000000+00:00" });
    mock.clock.advance("1h");
    expect(await runsOf(t2)).toHaveLength(1);
  });

  it("a stateless cron runs on a new thread each time, deleted after the run unless on_run_completed is keep", async () => {
    await statelessCron({ assistant_id: "agent", schedule: "0 7 * * *", input: digest });
    await statelessCron({ assistant_id: "agent", schedule: "0 8 * * *", input: { messages: [{ role: "user", content: "hello there" }] }, on_run_completed: "keep" });
    mock.clock.advance("1d");
    const [deleted] = await mock.waitFor.run({ scenario: "nightly-digest", status: "success" });
    const [kept] = await mock.waitFor.run({ scenario: "echo", status: "success" });
    expect(deleted!).toMatchObject({ stateless: true, kwargs: { temporary: true } });
    expect(kept!).toMatchObject({ stateless: true, kwargs: { temporary: false } });
    expect(deleted!.thread_id).not.toBe(kept!.thread_id);
    await request(app).get(`/threads/${deleted!.thread_id}`).expect(404);
    expect((await request(app).get(`/threads/${kept!.thread_id}`).expect(200)).body.values.messages[1].content).toBe("You said: hello there");
    // A kept thread is an ordinary thread: thread search lists it.
    expect((await request(app).post("/threads/search").send({})).body.map((t: { thread_id: string }) => t.thread_id)).toEqual([kept!.thread_id]);
  });

  it("a firing no scenario matches starts no run; the cron moves on and fires again later", async () => {
    const threadId = await newThread();
    await threadCron(threadId, { assistant_id: "agent", schedule: "0 * * * *", input: { nothing: "matches" } });
    mock.clock.advance("1h");
    expect(await runsOf(threadId)).toEqual([]);
    expect((await request(app).post("/runs/crons/search").send({})).body[0].next_run_date).toBe("2026-01-15T11:00:00.000000+00:00");
  });

  it("reset removes every cron: nothing fires after it", async () => {
    const threadId = await newThread();
    await threadCron(threadId, { assistant_id: "agent", schedule: "*/5 * * * *", input: digest });
    await statelessCron({ assistant_id: "agent", schedule: "*/5 * * * *", input: digest });
    mock.reset();
    expect((await request(app).post("/runs/crons/count").send({})).body).toBe(0);
    mock.clock.advance("1h");
    expect(mock.runs()).toEqual([]);
  });

  it("/info says crons are served", async () => {
    expect((await request(app).get("/info").expect(200)).body.flags.crons).toBe(true);
  });

  it("the clock moved over HTTP (/_mock/clock) fires crons too", async () => {
    const threadId = await newThread();
    await threadCron(threadId, { assistant_id: "agent", schedule: "30 9 * * *", input: digest });
    await request(app).post("/_mock/clock").send({ advance: "30m" }).expect(200);
    expect(await runsOf(threadId)).toHaveLength(1);
  });
});

describe("crons on a real-time clock (no seed)", () => {
  it("fire when the clock is advanced; reset stops the 5 s poll along with the crons", async () => {
    const server = await startMockServer({ port: 0, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
    try {
      const threadId = await makeThread(server.url);
      await request(server.url).post(`/threads/${threadId}/runs/crons`).send({ assistant_id: "agent", schedule: "* * * * *", input: digest }).expect(200);
      server.clock.advance("1m");
      expect(server.control.runs({ thread_id: threadId })).toHaveLength(1);
      server.reset();
      expect((await request(server.url).post("/runs/crons/count").send({})).body).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe("crons with SDK 2.x client.crons", () => {
  let server: MockServer;
  let client: InstanceType<typeof Client>;

  beforeAll(async () => {
    server = await startMockServer({ port: 0, seed: 9, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
    client = new Client({ apiUrl: server.url });
  });
  afterAll(async () => {
    await server.close();
  });

  it("createForThread, create, search, count, update and delete; a cron fires when the clock moves", async () => {
    const thread = await client.threads.create();
    const onThread = await client.crons.createForThread(thread.thread_id, "agent", { schedule: "0 7 * * *", input: digest, metadata: { kind: "digest" } });
    expect(onThread).toMatchObject({ thread_id: thread.thread_id, assistant_id: AGENT, schedule: "0 7 * * *", enabled: true, metadata: { kind: "digest" } });
    const stateless = await client.crons.create("agent", { schedule: "0 8 * * 1-5", input: digest, onRunCompleted: "keep", enabled: false });
    expect(stateless).toMatchObject({ thread_id: null, on_run_completed: "keep", enabled: false, next_run_date: "2026-01-16T08:00:00.000000+00:00" });

    expect((await client.crons.search({ threadId: thread.thread_id })).map((c) => c.cron_id)).toEqual([onThread.cron_id]);
    expect((await client.crons.search({ enabled: false })).map((c) => c.cron_id)).toEqual([stateless.cron_id]);
    expect((await client.crons.search({ sortBy: "next_run_date", sortOrder: "asc", limit: 1 })).map((c) => c.cron_id)).toEqual([onThread.cron_id]);
    expect(await client.crons.search({ select: ["cron_id", "schedule"], sortBy: "next_run_date", sortOrder: "asc" })).toEqual([
      { cron_id: onThread.cron_id, schedule: "0 7 * * *" },
      { cron_id: stateless.cron_id, schedule: "0 8 * * 1-5" },
    ]);
    expect(await client.crons.count()).toBe(2);
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);

    const updated = await client.crons.update(onThread.cron_id, { schedule: "15 9 * * *", metadata: { owner: "ops" } });
    expect(updated).toMatchObject({ schedule: "15 9 * * *", next_run_date: "2026-01-15T09:15:00.000000+00:00", metadata: { kind: "digest", owner: "ops" } });

    server.control.clock.advance("15m");
    const runs = await client.runs.list(thread.thread_id);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.metadata).toEqual({ created_by: "system", graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca", kind: "digest", owner: "ops" });
    await client.runs.join(thread.thread_id, runs[0]!.run_id);
    expect((await client.threads.getState(thread.thread_id)).values).toMatchObject({ digest: { sections: ["inbox", "calendar", "tickets"] } });

    await client.crons.delete(onThread.cron_id);
    await client.crons.delete(stateless.cron_id);
    expect(await client.crons.count()).toBe(0);
    await expect(client.crons.delete(stateless.cron_id)).rejects.toThrow(/404/);
  });
});
