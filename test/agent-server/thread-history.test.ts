import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-1";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { newThread } from "../support/agent-server.js";
import { expectFits } from "../support/schema-assert.js";
import { contextOf } from "../../src/mock-control.js";

const AGENT_ID = "fe096781-5601-53d2-b2f6-0d3403f7e9ca";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const SCENARIOS: ScenarioInput[] = [
  {
    name: "chat",
    match: { input: { chat: true } },
    turns: [
      { events: [{ event: "values", data: { messages: ["hi", "hello"] } }] },
      { events: [{ event: "values", data: { messages: ["hi", "hello", "how are you?", "fine"] } }] },
      { events: [{ event: "values", data: { messages: ["hi", "hello", "how are you?", "fine", "bye", "bye"] } }] },
    ],
  },
  {
    name: "approval",
    match: { input: { approve: true } },
    turns: [
      { events: [{ event: "values", data: { draft: "report" } }], end: { interrupt: { value: { question: "Send it?" }, id: "int-1", node: "human" } } },
      { events: [{ event: "values", data: { draft: "report", sent: true } }] },
    ],
  },
  {
    name: "steps",
    match: { input: { steps: true } },
    events: [
      { event: "updates", data: { plan: { q: "?" } } },
      { event: "values", data: { q: "?" } },
      { event: "updates", data: { reply: { answer: 42 } } },
      { event: "values", data: { q: "?", answer: 42 } },
    ],
  },
  {
    name: "explicit-steps",
    match: { input: { explicit: true } },
    events: [
      { event: "updates", data: { plan: { q: "?" } }, step: false },
      { event: "values", data: { draft: "d1" }, step: "writer" },
      { event: "custom", data: { sent: true }, step: "notify" },
    ],
  },
  { name: "hello", match: { input: { hello: true } }, events: [{ event: "values", data: { messages: ["hi", "hello"] } }] },
  { name: "slow", match: { input: { slow: true } }, events: [{ event: "values", data: { slow: true }, delay_ms: 10_000 }] },
  { name: "fails-after-values", match: { input: { fail: "late" } }, events: [{ event: "values", data: { partial: true } }], end: { error: { error: "ValueError", message: "boom" } } },
  { name: "fails-at-once", match: { input: { fail: "early" } }, end: { error: { error: "ValueError", message: "boom" } } },
];

function app(extra: Record<string, unknown> = {}) {
  return createApp({ seed: 1, fixtures: false, publicUrl: "http://mock.test", scenarios: SCENARIOS, ...extra });
}
type App = ReturnType<typeof app>;

/** Plays one run to its end; returns its run id. The clock moves 1 s first, so each checkpoint has its own time. */
async function run(a: App, threadId: string, body: object): Promise<string> {
  mockOf(a).clock.advance("1s");
  const res = await request(a).post(`/threads/${threadId}/runs/wait`).send({ assistant_id: "agent", ...body }).expect(200);
  return (res.headers["content-location"] as string).split("/").at(-1) as string;
}

const ref = (thread_id: string, checkpoint_id: string | null) => ({ thread_id, checkpoint_ns: "", checkpoint_id, checkpoint_map: null });
/** A checkpoint's metadata: the run's metadata and configurable, then what LangGraph's loop writes. */
const meta = (thread_id: string, run_id: string, step: number, extra: object = {}, source = "loop", writes: unknown = null) => ({
  // The run's merged metadata: the default assistant's `created_by` first.
  created_by: "system",
  ...extra,
  run_id,
  thread_id,
  graph_id: "agent",
  assistant_id: AGENT_ID,
  langgraph_request_id: expect.stringMatching(UUID),
  run_attempt: 1,
  // The server's keys (vendored stream.py), as the hosted platform sets them.
  langgraph_version: "0.6.7",
  langgraph_api_version: "0.5.23",
  langgraph_plan: "enterprise",
  langgraph_host: "saas",
  source,
  step,
  parents: {},
  writes,
});
type State = { checkpoint: { checkpoint_id: string }; parent_checkpoint: { checkpoint_id: string } | null };
/** The task of an input checkpoint: `__start__`, whose result is the run's input (as LangGraph's StateSnapshot). */
/** LangGraph's StateSnapshot for a checkpoint id the thread does not have. */
const emptySnapshot = (thread_id: string, checkpoint_id: string) => ({
  values: {},
  next: [],
  tasks: [],
  checkpoint: { thread_id, checkpoint_ns: "", checkpoint_id, checkpoint_map: null },
  metadata: null,
  created_at: null,
  parent_checkpoint: null,
  interrupts: [],
});
const startTask = (input: object) => ({ id: expect.stringMatching(UUID), name: "__start__", path: ["__pregel_pull", "__start__"], error: null, interrupts: [], checkpoint: null, state: null, result: input });
const ids = (states: State[]) => states.map((s) => s.checkpoint.checkpoint_id);

describe("thread history", () => {
  it("a new thread has no history; each run adds an input state and one per step, newest first, linked to the one before", async () => {
    const a = app();
    const tid = await newThread(a);
    await request(a).post(`/threads/${tid}/history`).send({ limit: 10 }).expect(200, []);
    await request(a).get(`/threads/${tid}/history`).expect(200, []);

    const r1 = await run(a, tid, { input: { chat: true }, metadata: { user: "alice" } });
    const r2 = await run(a, tid, { input: { chat: true } });
    const history = (await request(a).post(`/threads/${tid}/history`).send({ limit: 10 }).expect(200)).body as State[];
    const [c4, c3, c2, c1] = ids(history);
    expect(new Set([c1, c2, c3, c4]).size).toBe(4);
    const first = { messages: ["hi", "hello"] };
    expect(history).toEqual([
      {
        values: { messages: ["hi", "hello", "how are you?", "fine"] },
        next: [],
        tasks: [],
        checkpoint: ref(tid, c4!),
        metadata: meta(tid, r2, 2),
        created_at: "2026-01-15T09:00:02.000000+00:00",
        parent_checkpoint: ref(tid, c3!),
        interrupts: [],
      },
      {
        values: first,
        next: ["__start__"],
        tasks: [startTask({ chat: true })],
        checkpoint: ref(tid, c3!),
        metadata: meta(tid, r2, 1, {}, "input", { __start__: { chat: true } }),
        created_at: "2026-01-15T09:00:02.000000+00:00",
        parent_checkpoint: ref(tid, c2!),
        interrupts: [],
      },
      {
        values: first,
        next: [],
        tasks: [],
        checkpoint: ref(tid, c2!),
        metadata: meta(tid, r1, 0, { user: "alice" }),
        created_at: "2026-01-15T09:00:01.000000+00:00",
        parent_checkpoint: ref(tid, c1!),
        interrupts: [],
      },
      {
        values: { messages: [] },
        next: ["__start__"],
        tasks: [startTask({ chat: true })],
        checkpoint: ref(tid, c1!),
        metadata: meta(tid, r1, -1, { user: "alice" }, "input", { __start__: { chat: true } }),
        created_at: "2026-01-15T09:00:01.000000+00:00",
        parent_checkpoint: null,
        interrupts: [],
      },
    ]);
    for (const state of history) expectFits("agent-server/thread.json#/$defs/ThreadState", state);
    // The current state is the newest state of the history; a past one can be read by its checkpoint id.
    expect((await request(a).get(`/threads/${tid}/state`).expect(200)).body).toEqual(history[0]);
    expect((await request(a).get(`/threads/${tid}/state/${c2}`).expect(200)).body).toEqual(history[2]);
    expect((await request(a).post(`/threads/${tid}/state/checkpoint`).send({ checkpoint: { checkpoint_id: c2 } }).expect(200)).body).toEqual(history[2]);
    expect((await request(a).post(`/threads/${tid}/state/checkpoint`).send({ checkpoint: {} }).expect(200)).body).toEqual(history[0]);
    // The thread's state_updated_at is the newest checkpoint's time.
    expect((await request(a).get(`/threads/${tid}`)).body.state_updated_at).toBe("2026-01-15T09:00:02.000000+00:00");
  });

  it("a step is a node update: one loop state per updates event, with its writes, the state after it and the next node", async () => {
    const a = app();
    const tid = await newThread(a);
    const rid = await run(a, tid, { input: { steps: true } });
    const history = (await request(a).get(`/threads/${tid}/history`).expect(200)).body;
    expect(history.map((s: { metadata: { source: string; step: number; writes: unknown }; next: string[]; values: unknown }) => [s.metadata.source, s.metadata.step, s.metadata.writes, s.next, s.values])).toEqual([
      ["loop", 2, { reply: { answer: 42 } }, [], { q: "?", answer: 42 }],
      ["loop", 1, { plan: { q: "?" } }, ["reply"], { q: "?" }],
      // Step 0 has the input applied through the graph's channels (MessagesState: `steps` is last-value).
      ["loop", 0, null, ["plan"], { messages: [], steps: true }],
      ["input", -1, { __start__: { steps: true } }, ["__start__"], { messages: [] }],
    ]);
    expect(history[0].metadata.run_id).toBe(rid);
  });

  it("a scenario event can state whether it is a step, and whose", async () => {
    const a = app();
    const tid = await newThread(a);
    await run(a, tid, { input: { explicit: true } });
    const history = (await request(a).get(`/threads/${tid}/history`).expect(200)).body;
    expect(history.map((s: { metadata: { source: string; step: number; writes: unknown }; next: string[]; values: unknown }) => [s.metadata.source, s.metadata.step, s.metadata.writes, s.next, s.values])).toEqual([
      // The custom event named a step writes its data: reduced into the state (last-value channel).
      ["loop", 2, { notify: { sent: true } }, [], { draft: "d1", sent: true }],
      ["loop", 1, { writer: { draft: "d1" } }, ["notify"], { draft: "d1" }],
      ["loop", 0, null, ["writer"], { messages: [], explicit: true }],
      ["input", -1, { __start__: { explicit: true } }, ["__start__"], { messages: [] }],
    ]);
  });

  it("a run created with checkpoint_id forks the thread from that state", async () => {
    const a = app();
    const tid = await newThread(a);
    await run(a, tid, { input: { chat: true } });
    await run(a, tid, { input: { chat: true } });
    const before = (await request(a).get(`/threads/${tid}/history`)).body;
    const firstTurn = before[2];
    expect(firstTurn.values).toEqual({ messages: ["hi", "hello"] });
    await run(a, tid, { input: { hello: true }, checkpoint_id: firstTurn.checkpoint.checkpoint_id });
    const after = (await request(a).get(`/threads/${tid}/history`)).body;
    expect(after).toHaveLength(6);
    // The fork's input state follows the checkpoint it started from, with the state it held.
    expect(after[1]).toMatchObject({ values: firstTurn.values, parent_checkpoint: firstTurn.checkpoint, metadata: { source: "input", step: 1 } });
    // The thread plays its scenario's next turn, from the forked state.
    expect(after[0]).toMatchObject({ values: { messages: ["hi", "hello", "how are you?", "fine", "bye", "bye"] }, metadata: { source: "loop", step: 2 } });
    expect((await request(a).get(`/threads/${tid}/state`)).body).toEqual(after[0]);
  });

  it("is the same with the same seed", async () => {
    const play = async () => {
      const a = app();
      const tid = await newThread(a);
      await run(a, tid, { input: { chat: true } });
      await run(a, tid, { input: { chat: true } });
      return (await request(a).get(`/threads/${tid}/history`).expect(200)).body;
    };
    const [first, second] = [await play(), await play()];
    expect(second).toEqual(first);
    expect(first).toHaveLength(4);
  });

  it("an interrupt is a state with next, tasks and interrupts; the resume adds a state after it", async () => {
    const a = app();
    const tid = await newThread(a);
    const r1 = await run(a, tid, { input: { approve: true } });
    const interrupted = (await request(a).post(`/threads/${tid}/history`).send({ limit: 10 }).expect(200)).body;
    expect(interrupted).toHaveLength(2);
    expect(interrupted[1]).toMatchObject({ values: { messages: [] }, next: ["__start__"], metadata: meta(tid, r1, -1, {}, "input", { __start__: { approve: true } }) });
    const taskId = interrupted[0].tasks[0]?.id;
    expect(taskId).toMatch(UUID);
    const interrupt = { value: { question: "Send it?" }, id: "int-1" };
    expect(interrupted[0]).toEqual({
      values: { draft: "report" },
      next: ["human"],
      tasks: [{ id: taskId, name: "human", path: ["__pregel_pull", "human"], error: null, interrupts: [interrupt], checkpoint: null, state: null, result: null }],
      checkpoint: ref(tid, interrupted[0].checkpoint.checkpoint_id),
      metadata: meta(tid, r1, 0),
      created_at: "2026-01-15T09:00:01.000000+00:00",
      parent_checkpoint: interrupted[1].checkpoint,
      interrupts: [interrupt],
    });
    expect((await request(a).get(`/threads/${tid}/state`)).body).toEqual(interrupted[0]);
    expect((await request(a).get(`/threads/${tid}`)).body).toMatchObject({ status: "interrupted", interrupts: { [taskId]: [interrupt] } });

    const r2 = await run(a, tid, { command: { resume: "yes" } });
    const resumed = (await request(a).post(`/threads/${tid}/history`).send({ limit: 10 }).expect(200)).body;
    expect(resumed).toEqual([
      {
        values: { draft: "report", sent: true },
        next: [],
        tasks: [],
        checkpoint: ref(tid, resumed[0].checkpoint.checkpoint_id),
        // A resume (command only) writes no input state: one loop state after the interrupted one.
        metadata: meta(tid, r2, 1),
        created_at: "2026-01-15T09:00:02.000000+00:00",
        parent_checkpoint: ref(tid, interrupted[0].checkpoint.checkpoint_id),
        interrupts: [],
      },
      ...interrupted,
    ]);
    expect((await request(a).get(`/threads/${tid}/state`)).body).toEqual(resumed[0]);
  });

  it("a failed run keeps the states it reached: its input, the input applied, the values it streamed", async () => {
    const a = app();
    const tid = await newThread(a);
    await run(a, tid, { input: { hello: true } });
    const before = (await request(a).get(`/threads/${tid}/history`)).body;
    // As LangGraph saves them before a node fails: the input state, then the state with the input applied.
    const r2 = await run(a, tid, { input: { fail: "early" } });
    const early = (await request(a).get(`/threads/${tid}/history`)).body;
    expect(early).toHaveLength(before.length + 2);
    expect(early[1]).toMatchObject({ values: before[0].values, metadata: meta(tid, r2, 1, {}, "input", { __start__: { fail: "early" } }), parent_checkpoint: before[0].checkpoint });
    expect(early[0]).toMatchObject({ values: { ...before[0].values, fail: "early" }, metadata: meta(tid, r2, 2), parent_checkpoint: early[1].checkpoint });
    expect(early.slice(2)).toEqual(before);
    expect((await request(a).get(`/threads/${tid}/state`)).body).toEqual(early[0]);
    const r3 = await run(a, tid, { input: { fail: "late" } });
    const history = (await request(a).get(`/threads/${tid}/history`)).body;
    expect(history).toHaveLength(early.length + 2);
    expect(history[1]).toMatchObject({ values: early[0].values, metadata: meta(tid, r3, 3, {}, "input", { __start__: { fail: "late" } }), parent_checkpoint: early[0].checkpoint });
    // The values it streamed are the state it failed in.
    expect(history[0]).toMatchObject({ values: { partial: true }, metadata: meta(tid, r3, 4), parent_checkpoint: history[1].checkpoint, created_at: "2026-01-15T09:00:03.000000+00:00" });
    expect(history.slice(2)).toEqual(early);
  });

  it("a rolled-back run leaves no state; a cancelled one keeps the states it reached", async () => {
    const a = app({ clock: { autoAdvance: false } });
    const tid = await newThread(a);
    await run(a, tid, { input: { hello: true } });
    const [first, firstInput] = (await request(a).get(`/threads/${tid}/history`)).body;
    const slow = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true } }).expect(200)).body.run_id;
    await run(a, tid, { input: { hello: true }, multitask_strategy: "rollback" });
    await request(a).get(`/threads/${tid}/runs/${slow}`).expect(404);
    const history = (await request(a).get(`/threads/${tid}/history`)).body;
    expect(history.map((s: State) => [s.checkpoint.checkpoint_id, s.parent_checkpoint?.checkpoint_id ?? null])).toEqual([
      [history[0].checkpoint.checkpoint_id, history[1].checkpoint.checkpoint_id],
      [history[1].checkpoint.checkpoint_id, first.checkpoint.checkpoint_id],
      [first.checkpoint.checkpoint_id, firstInput.checkpoint.checkpoint_id],
      [firstInput.checkpoint.checkpoint_id, null],
    ]);
    // A cancelled run keeps what it reached before the cancel: its input state and the input applied.
    const cancelled = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true } }).expect(200)).body.run_id;
    await request(a).post(`/threads/${tid}/runs/${cancelled}/cancel?wait=1`).expect(204);
    const after = (await request(a).get(`/threads/${tid}/history`)).body;
    expect(after.slice(2)).toEqual(history);
    expect(after.slice(0, 2).map((s: State & { values: unknown; metadata: { source: string; run_id: string } }) => [s.metadata.source, s.metadata.run_id, s.values])).toEqual([
      ["loop", cancelled, { messages: ["hi", "hello"], slow: true }],
      ["input", cancelled, { messages: ["hi", "hello"] }],
    ]);
    expect((await request(a).get(`/threads/${tid}`)).body).toMatchObject({ status: "idle", values: { messages: ["hi", "hello"], slow: true } });
  });

  it("limit (1 by default in the body, 10 in the query), before, metadata and checkpoint filter the states", async () => {
    const a = app();
    const tid = await newThread(a);
    await run(a, tid, { input: { chat: true }, metadata: { user: "alice" } });
    await run(a, tid, { input: { chat: true }, metadata: { user: "bob" } });
    await run(a, tid, { input: { chat: true }, metadata: { user: "alice" } });
    // Two states a run (input, then the loop state after its one step): c1…c6, oldest first.
    const all = (await request(a).get(`/threads/${tid}/history`).expect(200)).body as State[];
    expect(all).toHaveLength(6);
    const [c6, c5, c4, c3, c2, c1] = ids(all);
    expect(all.map((s) => s.parent_checkpoint?.checkpoint_id ?? null)).toEqual([c5, c4, c3, c2, c1, null]);
    const post = async (body: object) => ids((await request(a).post(`/threads/${tid}/history`).send(body).expect(200)).body);
    const get = async (query: string) => ids((await request(a).get(`/threads/${tid}/history?${query}`).expect(200)).body);

    expect(await post({})).toEqual([c6]);
    expect(await post({ limit: 2 })).toEqual([c6, c5]);
    expect(await get("limit=2")).toEqual([c6, c5]);
    // `before`: a run config (the JS SDK's type), a CheckpointConfig (the OpenAPI document) or an id.
    expect(await post({ limit: 10, before: { configurable: { checkpoint_id: c3 } } })).toEqual([c2, c1]);
    expect(await post({ limit: 10, before: { thread_id: tid, checkpoint_ns: "", checkpoint_id: c2 } })).toEqual([c1]);
    expect(await post({ limit: 10, before: c1 })).toEqual([]);
    expect(await post({ limit: 1, before: c3 })).toEqual([c2]);
    expect(await get(`before=${c3}`)).toEqual([c2, c1]);
    expect(await post({ limit: 10, before: "00000000-0000-4000-8000-000000000000" })).toEqual([]);
    // `metadata`: containment, as the search routes; `checkpoint`: that checkpoint only, or a subgraph's (none).
    expect(await post({ limit: 10, metadata: { user: "alice" } })).toEqual([c6, c5, c2, c1]);
    expect(await post({ limit: 10, metadata: { step: 2, source: "loop" } })).toEqual([c4]);
    expect(await post({ limit: 10, metadata: { source: "input" } })).toEqual([c5, c3, c1]);
    expect(await post({ limit: 10, metadata: { user: "carol" } })).toEqual([]);
    expect(await post({ limit: 10, checkpoint: { checkpoint_id: c2 } })).toEqual([c2]);
    expect(await post({ limit: 10, checkpoint: { checkpoint_ns: "sub:1" } })).toEqual([]);
    expect(await post({ limit: 10, metadata: null, checkpoint: null, before: null, select: ["values"] })).toEqual([c6, c5, c4, c3, c2, c1]);
  });

  it("reset() puts the history back as it was at start; a deleted thread loses its history", async () => {
    const a = app();
    const kept = await newThread(a);
    await run(a, kept, { input: { chat: true } });
    const atStart = (await request(a).get(`/threads/${kept}/history`)).body;
    contextOf(mockOf(a)).markStarted();
    const later = await newThread(a);
    await run(a, later, { input: { chat: true } });
    await run(a, kept, { input: { chat: true } });
    expect((await request(a).get(`/threads/${kept}/history`)).body).toHaveLength(4);

    mockOf(a).reset();
    expect((await request(a).get(`/threads/${kept}/history`).expect(200)).body).toEqual(atStart);
    expect((await request(a).get(`/threads/${kept}/state`).expect(200)).body).toEqual(atStart[0]);
    await request(a).get(`/threads/${later}/history`).expect(404, { detail: "Not Found" });
    await request(a).post("/threads").send({ thread_id: later }).expect(200);
    await request(a).get(`/threads/${later}/history`).expect(200, []);

    await request(a).delete(`/threads/${kept}`).expect(204);
    await request(a).post(`/threads/${kept}/history`).send({}).expect(404, { detail: "Not Found" });
    await request(a).post("/threads").send({ thread_id: kept }).expect(200);
    await request(a).post(`/threads/${kept}/history`).send({ limit: 10 }).expect(200, []);
    // The recreated thread has none of the old thread's checkpoints: LangGraph's empty snapshot naming the asked one.
    const askedId = atStart[0].checkpoint.checkpoint_id;
    expect((await request(a).get(`/threads/${kept}/state/${askedId}`).expect(200)).body).toEqual(emptySnapshot(kept, askedId));
  });

  it("answers the other thread routes' 404 and 422", async () => {
    const a = app();
    const missing = "6f1c2b3a-1111-4222-8333-444455556666";
    await request(a).get(`/threads/${missing}/history`).expect(404, { detail: "Not Found" });
    await request(a).post(`/threads/${missing}/history`).send({}).expect(404, { detail: "Not Found" });
    await request(a).get(`/threads/${missing}/state/${missing}`).expect(404, { detail: "Not Found" });
    await request(a).post(`/threads/${missing}/state/checkpoint`).send({ checkpoint: {} }).expect(404, { detail: "Not Found" });
    await request(a).get("/threads/nope/history").expect(422, { detail: "Invalid thread ID: must be a UUID" });
    await request(a).post("/threads/nope/history").send({}).expect(422, { detail: "Invalid thread ID: must be a UUID" });
    const tid = await newThread(a);
    // A checkpoint the thread does not have: 200 with the empty snapshot naming it, as LangGraph's aget_state.
    expect((await request(a).get(`/threads/${tid}/state/${missing}`).expect(200)).body).toEqual(emptySnapshot(tid, missing));
    expect((await request(a).post(`/threads/${tid}/state/checkpoint`).send({ checkpoint: { checkpoint_id: missing } }).expect(200)).body).toEqual(emptySnapshot(tid, missing));
    await request(a).post(`/threads/${tid}/state/checkpoint`).send({}).expect(422, { detail: "'checkpoint' is a required property" });
    await request(a).post(`/threads/${tid}/history`).send({ limit: 0 }).expect(422, { detail: "0 must be >= 1 (at /limit)" });
    await request(a).post(`/threads/${tid}/history`).send({ limit: 1001 }).expect(422, { detail: "1001 must be <= 1000 (at /limit)" });
    await request(a).post(`/threads/${tid}/history`).send({ metadata: [1] }).expect(422, { detail: '[1] is not of type "object,null" (at /metadata)' });
    await request(a).get(`/threads/${tid}/history?limit=abc`).expect(422, { detail: "limit: Input should be a valid integer, unable to parse string as an integer" });
    await request(a).post(`/threads/${tid}/history`).set("Content-Type", "application/json").send("{").expect(422);
    await request(a).put(`/threads/${tid}/history`).send({}).expect(405, { detail: "Method Not Allowed" });
  });
});

describe("PATCH /threads/{thread_id}", () => {
  it("merges metadata into the thread's (top-level keys replaced) and answers the updated Thread", async () => {
    const a = app();
    const tid = await newThread(a, { metadata: { user: "alice", tier: { plan: "pro", seats: 3 } } });
    mockOf(a).clock.advance("1s");
    const res = await request(a)
      .patch(`/threads/${tid}`)
      .send({ metadata: { tier: { plan: "team" }, topic: "billing" }, ttl: { strategy: "delete", ttl: 60 } })
      .expect(200);
    expect(res.body).toEqual({
      thread_id: tid,
      created_at: "2026-01-15T09:00:00.000000+00:00",
      updated_at: "2026-01-15T09:00:01.000000+00:00",
      state_updated_at: "2026-01-15T09:00:00.000000+00:00",
      metadata: { user: "alice", tier: { plan: "team" }, topic: "billing" },
      status: "idle",
      config: {},
      values: null,
      interrupts: {},
    });
    expectFits("agent-server/thread.json#/$defs/Thread", res.body);
    expect((await request(a).get(`/threads/${tid}`)).body).toEqual(res.body);
    // Search sees the new metadata.
    expect((await request(a).post("/threads/search").send({ metadata: { topic: "billing" } })).body.map((t: { thread_id: string }) => t.thread_id)).toEqual([tid]);
    // An empty body changes nothing but updated_at.
    mockOf(a).clock.advance("1s");
    expect((await request(a).patch(`/threads/${tid}`).send({}).expect(200)).body).toEqual({ ...res.body, updated_at: "2026-01-15T09:00:02.000000+00:00" });
  });

  it("keeps a key named __proto__ as data", async () => {
    const a = app();
    const tid = await newThread(a);
    const res = await request(a).patch(`/threads/${tid}`).set("Content-Type", "application/json").send('{"metadata":{"__proto__":{"polluted":true},"constructor":1}}').expect(200);
    expect(res.text).toContain('"metadata":{"__proto__":{"polluted":true},"constructor":1}');
    expect(Object.keys(res.body.metadata)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("answers 204 without a body to Prefer: return=minimal", async () => {
    const a = app();
    const tid = await newThread(a);
    const res = await request(a).patch(`/threads/${tid}`).set("Prefer", "return=minimal").send({ metadata: { n: 1 } }).expect(204);
    expect(res.text).toBe("");
    expect((await request(a).get(`/threads/${tid}`)).body.metadata).toEqual({ n: 1 });
  });

  it("404 for a missing thread, 422 for a bad id or body", async () => {
    const a = app();
    await request(a).patch("/threads/6f1c2b3a-1111-4222-8333-444455556666").send({ metadata: {} }).expect(404, { detail: "Not Found" });
    await request(a).patch("/threads/nope").send({ metadata: {} }).expect(422, { detail: "Invalid thread ID: must be a UUID" });
    const tid = await newThread(a);
    await request(a).patch(`/threads/${tid}`).send({ metadata: "x" }).expect(422, { detail: '"x" is not of type "object" (at /metadata)' });
    await request(a).patch(`/threads/${tid}`).send({ ttl: { strategy: "forever" } }).expect(422, { detail: '"forever" is not one of ["delete","keep_latest"] (at /ttl/strategy)' });
  });

  it("is served under a deployment's URL too, with CORS and the API key", async () => {
    const a = app({ apiKey: "secret" });
    const tid = (await request(a).post("/threads").set("X-Api-Key", "secret").send({}).expect(200)).body.thread_id;
    await request(a).patch(`/agents/dep-1/threads/${tid}`).send({ metadata: { n: 1 } }).expect(403, { detail: "Missing authentication headers" });
    await request(a).post(`/agents/dep-1/threads/${tid}/history`).set("X-Api-Key", "wrong").send({}).expect(403, { detail: "Invalid token" });
    const preflight = await request(a).options(`/agents/dep-1/threads/${tid}`).set("Origin", "http://app.test").set("Access-Control-Request-Method", "PATCH").expect(200);
    expect(preflight.headers["access-control-allow-methods"]).toContain("PATCH");
    const patched = await request(a).patch(`/agents/dep-1/threads/${tid}`).set("X-Api-Key", "secret").set("Origin", "http://app.localhost:5173").send({ metadata: { n: 1 } }).expect(200);
    expect(patched.headers["access-control-allow-origin"]).toBe("*");
    expect(patched.body.metadata).toEqual({ n: 1 });
    await request(a).get(`/agents/dep-1/threads/${tid}/history`).set("X-Api-Key", "secret").expect(200, []);
    await request(a).put(`/agents/dep-1/threads/${tid}`).set("X-Api-Key", "secret").send({}).expect(405, { detail: "Method Not Allowed" });
  });
});

const SDKS: [string, (url: string) => InstanceType<typeof Client2>][] = [
  ["@langchain/langgraph-sdk 2.0.0", (url) => new Client2({ apiUrl: url })],
  ["@langchain/langgraph-sdk 1.15 (langgraph-sdk-1)", (url) => new Client1({ apiUrl: url }) as unknown as InstanceType<typeof Client2>],
];

describe.each(SDKS)("history and update with %s", (_name, makeClient) => {
  let mock: MockServer;
  let client: InstanceType<typeof Client2>;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 1, fixtures: false, scenarios: SCENARIOS });
    client = makeClient(mock.url);
  });
  afterAll(async () => {
    await mock.close();
  });

  it("getHistory lists the conversation newest first; getState reads a past checkpoint", async () => {
    const thread = await client.threads.create({ metadata: { user: "alice" } });
    expect(await client.threads.getHistory(thread.thread_id)).toEqual([]);
    await client.runs.wait(thread.thread_id, "agent", { input: { hello: true } });
    await client.runs.wait(thread.thread_id, "agent", { input: { approve: true } });
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((s) => [s.values, s.next, s.metadata?.source, s.metadata?.step])).toEqual([
      [{ draft: "report" }, ["human"], "loop", 2],
      [{ messages: ["hi", "hello"] }, ["__start__"], "input", 1],
      [{ messages: ["hi", "hello"] }, [], "loop", 0],
      [{ messages: [] }, ["__start__"], "input", -1],
    ]);
    expect(history[0]!.parent_checkpoint).toEqual(history[1]!.checkpoint);
    expect(history[0]!.tasks[0]!.interrupts).toEqual([{ value: { question: "Send it?" }, id: "int-1" }]);
    // The SDK's user-agent and the run's identity are in every state's metadata, as on the real server.
    expect(history[0]!.metadata).toMatchObject({ "user-agent": expect.any(String), thread_id: thread.thread_id, graph_id: "agent" });
    expect(await client.threads.getState(thread.thread_id)).toEqual(history[0]);
    const firstId = history[2]!.checkpoint.checkpoint_id!;
    expect(await client.threads.getState(thread.thread_id, firstId)).toEqual(history[2]);
    expect(await client.threads.getState(thread.thread_id, history[2]!.checkpoint)).toEqual(history[2]);
    expect(await client.threads.getHistory(thread.thread_id, { limit: 1 })).toEqual([history[0]]);
    expect(await client.threads.getHistory(thread.thread_id, { before: { configurable: { checkpoint_id: history[1]!.checkpoint.checkpoint_id } } })).toEqual(history.slice(2));
    expect(await client.threads.getHistory(thread.thread_id, { metadata: { step: 0 } })).toEqual([history[2]]);
  });

  it("update merges metadata and returns the thread", async () => {
    const thread = await client.threads.create({ metadata: { user: "alice", tier: "free" } });
    const updated = await client.threads.update(thread.thread_id, { metadata: { tier: "pro" } });
    expect(updated).toEqual({ ...thread, metadata: { user: "alice", tier: "pro" } });
    expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ user: "alice", tier: "pro" });
    await expect(client.threads.update("6f1c2b3a-1111-4222-8333-444455556666", { metadata: {} })).rejects.toThrow(/404/);
  });
});
