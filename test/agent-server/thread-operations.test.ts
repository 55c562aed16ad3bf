import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, mockOf } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { waitFor } from "./helpers.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";
import { threadsIn } from "../../src/agent-server/threads.js";

const chat: ScenarioInput = {
  name: "chat",
  match: { input: { say: "hi" } },
  events: [{ event: "values", data: { messages: [{ id: "m1", type: "human", content: "hi" }, { id: "m2", type: "ai", content: "hello" }] } }],
};
const slow: ScenarioInput = { name: "slow", match: { input: { slow: true } }, events: [{ event: "values", data: { done: true }, delay_ms: 10_000 }] };

let a: ReturnType<typeof createApp>;
beforeAll(() => {
  a = createApp({ seed: 3, fixtures: false, scenarios: [chat, slow], clock: { autoAdvance: false } });
});
beforeEach(() => mockOf(a).reset());

async function newThread(metadata: Record<string, unknown> = {}): Promise<string> {
  return (await request(a).post("/threads").send({ metadata }).expect(200)).body.thread_id;
}
async function chatOn(threadId: string): Promise<void> {
  await request(a).post(`/threads/${threadId}/runs/wait`).send({ assistant_id: "agent", input: { say: "hi" } }).expect(200);
}

describe("POST /threads/count", () => {
  it("counts the threads a search would find, with the same filters, without paging", async () => {
    await newThread({ team: "red" });
    await newThread({ team: "red" });
    const blue = await newThread({ team: "blue" });
    await chatOn(blue);
    await request(a).post("/threads/count").send({}).expect(200, "3");
    expect((await request(a).post("/threads/count").send({ metadata: { team: "red" } }).expect(200)).body).toBe(2);
    expect((await request(a).post("/threads/count").send({ values: { messages: [{ id: "m2" }] } })).body).toBe(1);
    expect((await request(a).post("/threads/count").send({ status: "busy" })).body).toBe(0);
    // The SDK sends no body for `count()`: every thread.
    expect((await request(a).post("/threads/count")).body).toBe(3);
    await request(a).post("/threads/count").send({ status: "sleepy" }).expect(422, { detail: '"sleepy" is not one of ["idle","busy","interrupted","error"] (at /status)' });
  });
});

describe("X-Pagination headers on POST /threads/search", () => {
  it("send Next and Total while more follow, and the real Total on the last page", async () => {
    for (let i = 0; i < 5; i++) await newThread();
    const first = await request(a).post("/threads/search").send({ limit: 2 }).expect(200);
    expect(first.body).toHaveLength(2);
    expect(first.headers["x-pagination-next"]).toBe("2");
    expect(first.headers["x-pagination-total"]).toBe("3");
    const last = await request(a).post("/threads/search").send({ limit: 2, offset: 4 }).expect(200);
    expect(last.body).toHaveLength(1);
    expect(last.headers["x-pagination-next"]).toBeUndefined();
    expect(last.headers["x-pagination-total"]).toBe("5");
    const exact = await request(a).post("/threads/search").send({ limit: 5 }).expect(200);
    expect(exact.headers["x-pagination-next"]).toBeUndefined();
    expect(exact.headers["x-pagination-total"]).toBe("5");
  });
});

describe("POST /threads/prune", () => {
  it("delete removes threads with their runs and checkpoints; keep_latest keeps only the newest checkpoint", async () => {
    const gone = await newThread();
    await chatOn(gone);
    const kept = await newThread();
    await chatOn(kept);
    await chatOn(kept);
    expect((await request(a).post(`/threads/${kept}/history`).send({ limit: 10 })).body).toHaveLength(4); // two runs, each an input and a loop checkpoint (a step per node update)

    const missing = "00000000-0000-4000-8000-000000000000";
    expect((await request(a).post("/threads/prune").send({ thread_ids: [gone, missing] }).expect(200)).body).toEqual({ pruned_count: 1 });
    await request(a).get(`/threads/${gone}`).expect(404, { detail: "Not Found" });
    expect(runsIn(contextOf(mockOf(a))).filter((r) => r.thread_id === gone)).toEqual([]);

    const latest = (await request(a).get(`/threads/${kept}/state`)).body;
    expect((await request(a).post("/threads/prune").send({ thread_ids: [kept], strategy: "keep_latest" }).expect(200)).body).toEqual({ pruned_count: 1 });
    const history = (await request(a).post(`/threads/${kept}/history`).send({ limit: 10 })).body;
    expect(history.map((s: { checkpoint: { checkpoint_id: string } }) => s.checkpoint.checkpoint_id)).toEqual([latest.checkpoint.checkpoint_id]);
    expect((await request(a).get(`/threads/${kept}`)).body.values).toEqual(latest.values);

    await request(a).post("/threads/prune").send({}).expect(422, { detail: "'thread_ids' is a required property" });
    await request(a).post("/threads/prune").send({ thread_ids: [kept], strategy: "all" }).expect(422);
  });
});

describe("POST /threads/{id}/copy", () => {
  it("makes a new idle thread with the same metadata and every checkpoint, thread_id rewritten in their metadata", async () => {
    const source = await newThread({ owner: "ana" });
    await chatOn(source);
    const sourceHistory = (await request(a).post(`/threads/${source}/history`).send({ limit: 10 })).body;
    const copy = (await request(a).post(`/threads/${source}/copy`).expect(200)).body;
    expect(copy).toEqual({
      thread_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      state_updated_at: expect.any(String),
      metadata: (await request(a).get(`/threads/${source}`)).body.metadata,
      status: "idle",
      config: {},
      values: null,
      interrupts: {},
    });
    expect(copy.thread_id).not.toBe(source);
    const copyHistory = (await request(a).post(`/threads/${copy.thread_id}/history`).send({ limit: 10 })).body;
    expect(copyHistory).toHaveLength(sourceHistory.length);
    for (const [i, state] of copyHistory.entries()) {
      expect(state.checkpoint).toEqual({ ...sourceHistory[i].checkpoint, thread_id: copy.thread_id });
      expect(state.values).toEqual(sourceHistory[i].values);
      expect(state.metadata).toEqual({ ...sourceHistory[i].metadata, thread_id: copy.thread_id });
    }
    // The source is untouched.
    expect((await request(a).post(`/threads/${source}/history`).send({ limit: 10 })).body).toEqual(sourceHistory);

    await request(a).post("/threads/00000000-0000-4000-8000-000000000000/copy").expect(409, { detail: "Conflict" });
    await request(a).post("/threads/nope/copy").expect(422, { detail: "Invalid thread ID: must be a UUID" });
  });
});

describe("POST /threads/{id}/state", () => {
  it("adds a checkpoint written as a node, merging messages by id, and returns its config", async () => {
    const tid = await newThread();
    await chatOn(tid);
    const before = (await request(a).get(`/threads/${tid}/state`)).body;
    const res = await request(a)
      .post(`/threads/${tid}/state`)
      .send({ values: { messages: [{ id: "m2", type: "ai", content: "edited" }, { id: "m3", type: "human", content: "more" }], mood: "ok" }, as_node: "agent" })
      .expect(200);
    const checkpoint = { thread_id: tid, checkpoint_ns: "", checkpoint_id: expect.stringMatching(/^[0-9a-f-]{36}$/) };
    expect(res.body).toEqual({ checkpoint, configurable: checkpoint, checkpoint_id: res.body.checkpoint.checkpoint_id });
    const state = (await request(a).get(`/threads/${tid}/state`)).body;
    expect(state.checkpoint.checkpoint_id).toBe(res.body.checkpoint_id);
    expect(state.parent_checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    // add_messages stores each message with its type's fields (langchain_core's model_dump).
    const message = (id: string, type: string, content: string) => ({ content, additional_kwargs: {}, response_metadata: {}, type, name: null, id, ...(type === "ai" ? { tool_calls: [], invalid_tool_calls: [], usage_metadata: null } : {}) });
    expect(state.values).toEqual({ messages: [message("m1", "human", "hi"), message("m2", "ai", "edited"), message("m3", "human", "more")], mood: "ok" });
    expect(state.metadata).toMatchObject({ source: "update", step: before.metadata.step + 1, parents: {}, writes: { agent: { mood: "ok" } }, thread_id: tid });
    expect((await request(a).get(`/threads/${tid}`)).body).toMatchObject({ status: "idle", values: state.values });
  });

  it("forks from a named checkpoint; refuses a busy thread (409), a thread without a graph (400) and unknown ones (404)", async () => {
    const tid = await newThread();
    await chatOn(tid);
    const first = (await request(a).get(`/threads/${tid}/state`)).body.checkpoint.checkpoint_id;
    await request(a).post(`/threads/${tid}/state`).send({ values: { n: 1 } }).expect(200);
    const fork = (await request(a).post(`/threads/${tid}/state`).send({ values: { n: 2 }, checkpoint: { checkpoint_id: first } }).expect(200)).body;
    const forked = (await request(a).get(`/threads/${tid}/state/${fork.checkpoint_id}`)).body;
    expect(forked.parent_checkpoint.checkpoint_id).toBe(first);
    expect(forked.values.n).toBe(2);
    await request(a).post(`/threads/${tid}/state`).send({ values: {}, checkpoint_id: "nope" }).expect(404, { detail: "Not Found" });

    const fresh = await newThread();
    const noGraph = await request(a).post(`/threads/${fresh}/state`).send({ values: { x: 1 } }).expect(400);
    expect(noGraph.body.detail).toMatch(new RegExp(`^Thread '${fresh}' has no assigned graph ID\\.`));
    // A graph_id in the thread's metadata is enough.
    const tagged = await newThread({ graph_id: "agent" });
    await request(a).post(`/threads/${tagged}/state`).send({ values: { x: 1 } }).expect(200);

    const busy = await newThread();
    const run = (await request(a).post(`/threads/${busy}/runs`).send({ assistant_id: "agent", input: { slow: true } }).expect(200)).body;
    await request(a).post(`/threads/${busy}/state`).send({ values: { x: 1 } }).expect(409, { detail: "Thread is busy with a running job. Cannot update state." });
    await request(a).post(`/threads/${busy}/runs/${run.run_id}/cancel?wait=1`).expect(204);
    await waitFor(() => threadsIn(contextOf(mockOf(a))).get(busy)?.status !== "busy");

    await request(a).post("/threads/00000000-0000-4000-8000-000000000000/state").send({ values: {} }).expect(404, { detail: "Not Found" });
  });
});
