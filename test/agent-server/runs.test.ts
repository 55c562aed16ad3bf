import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { BUNDLED_SCENARIOS, createApp, mockOf } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { rawText, sseEvents } from "../support/sse.js";
import { waitFor } from "./helpers.js";
import { newThread } from "../support/agent-server.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

const slow: ScenarioInput = {
  name: "slow",
  match: { input: { slow: true } },
  events: [
    { event: "updates", data: { agent: { step: 1 } } },
    { event: "values", data: { done: "{{input.tag}}" }, delay_ms: 10_000 },
  ],
};
const quick: ScenarioInput = { name: "quick", priority: -1, events: [{ event: "values", data: { quick: "{{input.tag}}" } }] };

function app(scenarios: ScenarioInput[] = [slow, quick], autoAdvance = false) {
  return createApp({ seed: 11, fixtures: false, publicUrl: "http://mock.test", scenarios, clock: { autoAdvance } });
}
type App = ReturnType<typeof app>;

const runs = (a: App) => runsIn(contextOf(mockOf(a)));
const statusOf = (a: App, runId: string) => runs(a).get(runId)?.status;

describe("background runs, wait and join", () => {
  it("POST /threads/{id}/runs returns the pending run; join waits and returns the final values", async () => {
    const a = app();
    const tid = await newThread(a);
    const created = await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true, tag: "bg" } }).expect(200);
    const run = created.body;
    expect(Object.keys(run).sort()).toEqual(["assistant_id", "created_at", "kwargs", "metadata", "multitask_strategy", "run_id", "status", "thread_id", "updated_at"]);
    expect(run).toMatchObject({ status: "pending", thread_id: tid, multitask_strategy: "enqueue", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" });
    expect(created.headers["content-location"]).toBe(`/threads/${tid}/runs/${run.run_id}`);
    const joined = request(a).get(`/threads/${tid}/runs/${run.run_id}/join`).then((r) => r);
    await waitFor(() => statusOf(a, run.run_id) === "running");
    expect((await request(a).get(`/threads/${tid}`)).body.status).toBe("busy");
    mockOf(a).clock.advance("10s");
    const res = await joined;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ done: "bg" });
    // As the Python server's join_run: the run's path, and the join route itself as Location.
    expect(res.headers["content-location"]).toBe(`/threads/${tid}/runs/${run.run_id}`);
    expect(res.headers.location).toBe(`/threads/${tid}/runs/${run.run_id}/join`);
    const again = await request(a).get(`/threads/${tid}/runs/${run.run_id}/join`).expect(200);
    expect(again.headers.location).toBe(`/threads/${tid}/runs/${run.run_id}/join`);
    expect((await request(a).get(`/threads/${tid}/runs/${run.run_id}`)).body.status).toBe("success");
    expect((await request(a).get(`/threads/${tid}`)).body).toMatchObject({ status: "idle", values: { done: "bg" } });
  });

  it("fills kwargs.config as the real server: request headers, the run's identity and a request id in configurable, mirrored in context", async () => {
    const a = app();
    const tid = await newThread(a);
    const created = await request(a)
      .post(`/threads/${tid}/runs`)
      .set("User-Agent", "tests/1.0")
      .set("X-Team", "blue")
      .set("X-Api-Key", "secret")
      .send({ assistant_id: "agent", input: { tag: "cfg" }, config: { tags: ["t"], configurable: { user: "u1" } }, metadata: { purpose: "test" }, after_seconds: 2 })
      .expect(200);
    const { run_id, kwargs, metadata } = created.body;
    const configurable = {
      user: "u1",
      "user-agent": "tests/1.0",
      "x-team": "blue",
      run_id,
      thread_id: tid,
      graph_id: "agent",
      assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
      langgraph_request_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5/),
      __after_seconds__: 2,
    };
    // The run's metadata as the real runtime's Runs.put merges it: the assistant's, the thread's
    // (which the run gives graph_id and assistant_id), then the request's.
    const merged = { created_by: "system", graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca", purpose: "test" };
    expect(kwargs.config).toEqual({ tags: ["t"], configurable, metadata: merged });
    expect(kwargs.context).toEqual(configurable);
    expect(metadata).toEqual(merged);
    const again = await request(a).post(`/threads/${tid}/runs`).set("X-Request-Id", "req-1").send({ assistant_id: "agent", input: { tag: "cfg" } }).expect(200);
    expect(again.body.kwargs.config.configurable.langgraph_request_id).toBe("req-1");
  });

  it("runs/wait returns the final values, or __error__ for a failed run", async () => {
    const a = app([{ name: "ok", match: { input: { ok: true } }, events: [{ event: "values", data: { answer: 42 } }] }, { name: "fail", end: { error: { error: "ValueError", message: "nope" } } }], true);
    const tid = await newThread(a);
    const ok = await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { ok: true } }).expect(200);
    expect(ok.body).toEqual({ answer: 42 });
    expect(ok.headers["content-location"]).toMatch(new RegExp(`^/threads/${tid}/runs/[0-9a-f-]{36}$`));
    expect(ok.headers.location).toBe(`${ok.headers["content-location"]}/join`);
    const failed = await request(a).post(`/runs/wait`).send({ assistant_id: "agent", input: {} }).expect(200);
    expect(failed.body).toEqual({ __error__: { error: "ValueError", message: "nope" } });
    // A stateless run is named on its temporary thread, as the Python server's wait_run does.
    const [, temporary] = /^\/threads\/([0-9a-f-]{36})\/runs\/[0-9a-f-]{36}$/.exec(failed.headers["content-location"] ?? "") ?? [];
    expect(temporary).toBeDefined();
    expect(temporary).not.toBe(tid);
    expect(failed.headers.location).toBe(`${failed.headers["content-location"]}/join`);
  });

  it("join-stream of a resumable run replays its events after Last-Event-ID (ids <ms>-<seq>) and follows it live, filtered by stream_mode", async () => {
    const a = app();
    const tid = await newThread(a);
    const body = { assistant_id: "agent", input: { slow: true, tag: "j" }, feedback_keys: ["k"], stream_mode: ["updates", "values"], stream_resumable: true };
    const { run_id } = (await request(a).post(`/threads/${tid}/runs`).send(body)).body;
    await waitFor(() => statusOf(a, run_id) === "running");
    const t0 = mockOf(a).clock.now().getTime();
    const joined = request(a).get(`/threads/${tid}/runs/${run_id}/stream`).set("Last-Event-ID", `${t0}-0`).buffer(true).parse(rawText).then((r) => r);
    await new Promise((r) => setImmediate(r));
    mockOf(a).clock.advance("10s");
    const res = await joined;
    expect(res.status).toBe(200);
    const t1 = t0 + 10_000;
    expect(sseEvents(res.body).map((e) => [e.event, e.id])).toEqual([["updates", `${t0}-1`], ["values", `${t1}-0`], ["feedback", `${t1}-1`]]);
    const onlyValues = await request(a).get(`/threads/${tid}/runs/${run_id}/stream?stream_mode=values`).buffer(true).parse(rawText).expect(200);
    expect(sseEvents(onlyValues.body).map((e) => [e.event, e.id])).toEqual([["metadata", `${t0}-0`], ["values", `${t1}-0`], ["feedback", `${t1}-1`]]);
    const afterAll = await request(a).get(`/threads/${tid}/runs/${run_id}/stream`).set("Last-Event-ID", `${t1}-1`).buffer(true).parse(rawText).expect(200);
    expect(afterAll.body).toBe("");
  });

  it("join-stream of a run that is not resumable follows it live only, without ids, in the run's own modes", async () => {
    const a = app();
    const tid = await newThread(a);
    // No stream_mode: the run publishes `values` only (the default), and a join gets no more.
    const { run_id } = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true, tag: "live" } })).body;
    await waitFor(() => statusOf(a, run_id) === "running");
    // Over a socket: once the headers are in, the join is following the run.
    const server = createServer(a).listen(0);
    try {
      const { port } = server.address() as AddressInfo;
      const joined = await fetch(`http://127.0.0.1:${port}/threads/${tid}/runs/${run_id}/stream`, { headers: { "Last-Event-ID": "0" } });
      mockOf(a).clock.advance("10s");
      expect(sseEvents(await joined.text())).toEqual([{ event: "values", data: { done: "live" }, id: null }]);
    } finally {
      server.close();
    }
    // Over and not resumable: nothing to replay.
    const late = await request(a).get(`/threads/${tid}/runs/${run_id}/stream`).buffer(true).parse(rawText).expect(200);
    expect(late.body).toBe("");
  });

  it("cancel interrupts a running run (202), and the thread goes back to idle", async () => {
    const a = app();
    const tid = await newThread(a);
    const { run_id } = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true, tag: "c" } }).expect(200)).body;
    await waitFor(() => statusOf(a, run_id) === "running");
    await request(a).post(`/threads/${tid}/runs/${run_id}/cancel`).expect(202);
    await waitFor(() => statusOf(a, run_id) === "interrupted");
    expect((await request(a).get(`/threads/${tid}`)).body.status).toBe("idle");
    await request(a).post(`/threads/${tid}/runs/${run_id}/cancel?wait=1`).expect(204);
  });

  it("lists a thread's runs newest first, with limit and status filter", async () => {
    const a = app(undefined, true);
    const tid = await newThread(a);
    const first = (await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { tag: 1 } })).headers["content-location"];
    const second = (await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { tag: 2 } })).headers["content-location"];
    const list = (await request(a).get(`/threads/${tid}/runs`).expect(200)).body;
    expect(list.map((r: { run_id: string }) => `/threads/${tid}/runs/${r.run_id}`)).toEqual([second, first]);
    expect((await request(a).get(`/threads/${tid}/runs?limit=1`)).body).toHaveLength(1);
    expect((await request(a).get(`/threads/${tid}/runs?status=error`)).body).toEqual([]);
    await request(a).get(`/threads/${tid}/runs?limit=x`).expect(422, { detail: "limit: Input should be a valid integer, unable to parse string as an integer" });
  });
});

describe("multitask strategies on a busy thread", () => {
  async function busyThread(a: App) {
    const tid = await newThread(a);
    const { run_id } = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true, tag: "first" } })).body;
    await waitFor(() => statusOf(a, run_id) === "running");
    return { tid, first: run_id as string };
  }

  it("reject answers 409 with the real server's text", async () => {
    const a = app();
    const { tid } = await busyThread(a);
    await request(a)
      .post(`/threads/${tid}/runs/stream`)
      .send({ assistant_id: "agent", input: { tag: "second" }, multitask_strategy: "reject" })
      .expect(409, { detail: "Thread is already running a task. Wait for it to finish or choose a different multitask strategy." });
  });

  it("enqueue (the default) starts the new run after the running one", async () => {
    const a = app();
    const { tid, first } = await busyThread(a);
    const second = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { tag: "second" } })).body.run_id;
    await new Promise((r) => setImmediate(r));
    expect([statusOf(a, first), statusOf(a, second)]).toEqual(["running", "pending"]);
    mockOf(a).clock.advance("10s");
    await waitFor(() => statusOf(a, second) === "success");
    expect(statusOf(a, first)).toBe("success");
    expect((await request(a).get(`/threads/${tid}`)).body.values).toEqual({ quick: "second" });
  });

  it("a queued run starts from the thread's state once the runs ahead have finished (double-texting)", async () => {
    const a = createApp({ seed: 4, fixtures: false, clock: { autoAdvance: false }, scenarios: [BUNDLED_SCENARIOS] });
    const tid = await newThread(a);
    const say = (content: string, multitask_strategy?: string) => request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { messages: [{ role: "user", content }] }, multitask_strategy });
    const [first, second] = await Promise.all([say("one"), say("two", "enqueue")]);
    // The clock held: each second of it lets the runs play on (the first, then the queued one).
    for (let i = 0; i < 10 && statusOf(a, second.body.run_id) !== "success"; i++) {
      mockOf(a).clock.advance("1s");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect([statusOf(a, first.body.run_id), statusOf(a, second.body.run_id)]).toEqual(["success", "success"]);
    const state = (await request(a).get(`/threads/${tid}/state`).expect(200)).body;
    expect(state.values.messages.map((m: { content: string }) => m.content)).toEqual(["one", "You said: one", "two", "You said: two"]);
    // The queued run's input checkpoint hangs off the first run's last one, and holds its messages.
    const history = (await request(a).get(`/threads/${tid}/history`).expect(200)).body as { metadata: { step: number; source: string }; values: { messages: unknown[] } }[];
    expect(history.map((h) => [h.metadata.step, h.metadata.source, h.values.messages.length])).toEqual([
      [4, "loop", 4],
      [3, "loop", 3],
      [2, "input", 2],
      [1, "loop", 2],
      [0, "loop", 1],
      [-1, "input", 0],
    ]);
  });

  it("interrupt cancels the running run; rollback also deletes it and its state", async () => {
    const a = app();
    const { tid, first } = await busyThread(a);
    const second = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { tag: "second" }, multitask_strategy: "interrupt" })).body.run_id;
    await waitFor(() => statusOf(a, second) === "success");
    expect(statusOf(a, first)).toBe("interrupted");

    const b = app();
    const busy = await busyThread(b);
    const third = (await request(b).post(`/threads/${busy.tid}/runs`).send({ assistant_id: "agent", input: { tag: "third" }, multitask_strategy: "rollback" })).body.run_id;
    await waitFor(() => statusOf(b, third) === "success");
    expect(runs(b).get(busy.first)).toBeUndefined();
    await request(b).get(`/threads/${busy.tid}/runs/${busy.first}`).expect(404, { detail: "Not Found" });
  });
});

describe("threads that play a scenario over several runs", () => {
  const approval: ScenarioInput = {
    name: "approval",
    match: { input: { messages: [{ content: { $contains: "send" } }] } },
    turns: [
      { events: [{ event: "values", data: { step: "draft" } }], end: { interrupt: { value: { question: "Send?" }, node: "review" } } },
      { events: [{ event: "values", data: { step: "sent", decision: "{{command.resume}}" } }] },
    ],
  };
  const chat: ScenarioInput = { name: "chat", match: { input: { messages: [{ content: { $contains: "hi" } }] } }, turns: [{ events: [{ event: "values", data: { turn: "{{turn}}" } }] }, { events: [{ event: "values", data: { turn: "{{turn}}", last: true } }] }] };

  it("an interrupted thread resumes with command.resume into the next turn", async () => {
    const a = app([approval], true);
    const tid = await newThread(a);
    const drafted = await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { messages: [{ role: "user", content: "send it" }] } }).expect(200);
    // The run's last values chunk, as the Python server: the interrupt alone; the state is the thread's.
    expect(drafted.body).toEqual({ __interrupt__: [{ value: { question: "Send?" }, id: expect.stringMatching(/^[0-9a-f]{32}$/) }] });
    expect((await request(a).get(`/threads/${tid}`)).body).toMatchObject({ status: "interrupted", values: { step: "draft" } });
    const resumed = await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", command: { resume: { approved: true } } }).expect(200);
    expect(resumed.body).toEqual({ step: "sent", decision: { approved: true } });
    expect((await request(a).get(`/threads/${tid}`)).body).toMatchObject({ status: "idle", interrupts: {} });
    expect((await request(a).get(`/threads/${tid}/state`)).body).toMatchObject({ next: [], interrupts: [], tasks: [] });
  });

  it("plays turns in order without matching again; the last turn repeats", async () => {
    const a = app([chat], true);
    const tid = await newThread(a);
    const said = async (content: string) => (await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { messages: [{ role: "user", content }] } })).body;
    expect(await said("hi")).toEqual({ turn: 1 });
    expect(await said("anything")).toEqual({ turn: 2, last: true });
    expect(await said("hi again")).toEqual({ turn: 2, last: true });
    const scenarios = (await request(a).get("/_mock/runs")).body.items.map((r: { scenario: string; turn: number }) => `${r.scenario}#${r.turn}`);
    expect(scenarios).toEqual(["chat#1", "chat#2", "chat#2"]);
  });
});

describe("run request errors", () => {
  it("answers as the real server: unknown thread 404, bad thread id 422, unknown graph 422, unknown assistant UUID 404, bad body 422", async () => {
    const a = app();
    await request(a).post("/threads/7d6a7b54-0c9e-4a1e-9d0e-111111111111/runs/stream").send({ assistant_id: "agent" }).expect(404, { detail: "Thread or assistant not found." });
    await request(a).post("/threads/not-a-uuid/runs/stream").send({ assistant_id: "agent" }).expect(422, { detail: "Invalid thread ID: must be a UUID" });
    const tid = await newThread(a);
    await request(a)
      .post(`/threads/${tid}/runs/stream`)
      .send({ assistant_id: "nope" })
      .expect(422, { detail: "Invalid assistant: 'nope'. Must be either:\n- A valid assistant UUID, or\n- One of the registered graphs: agent" });
    await request(a).post(`/threads/${tid}/runs/stream`).send({ assistant_id: "7d6a7b54-0c9e-4a1e-9d0e-222222222222" }).expect(404, { detail: "Thread or assistant not found." });
    await request(a).post(`/threads/${tid}/runs/stream`).send({ input: {} }).expect(422, { detail: "'assistant_id' is a required property" });
    await request(a).post(`/threads/${tid}/runs/stream`).send({ assistant_id: "agent", stream_mode: ["everything"] }).expect(422);
    await request(a).post(`/threads/${tid}/runs/stream`).set("content-type", "application/json").send("{bad").expect(422);
    await request(a).post("/runs/stream").send({ assistant_id: "agent", command: { resume: 1 } }).expect(400, { detail: "You must provide a thread_id when resuming." });
  });

  it("if_not_exists: create makes the thread with the path's id", async () => {
    const a = app(undefined, true);
    const tid = "7d6a7b54-0c9e-4a1e-9d0e-333333333333";
    await request(a).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { tag: "x" }, if_not_exists: "create" }).expect(200, { quick: "x" });
    expect((await request(a).get(`/threads/${tid}`).expect(200)).body.metadata).toEqual({ graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" });
  });

  it("serves the same routes under a deployment's custom_url and records the deployment", async () => {
    const a = app(undefined, true);
    const dep = "3c1f4c0e-6a43-4d8e-9f0b-444444444444";
    const tid = (await request(a).post(`/agents/${dep}/threads`).send({}).expect(200)).body.thread_id;
    const res = await request(a).post(`/agents/${dep}/threads/${tid}/runs/stream`).send({ assistant_id: "agent", input: { tag: "d" } }).buffer(true).parse(rawText).expect(200);
    expect(res.headers["content-location"]).toMatch(new RegExp(`^/threads/${tid}/runs/`));
    const [run] = (await request(a).get("/_mock/runs")).body.items;
    expect(run).toMatchObject({ deployment_id: dep, scenario: "quick", route: `POST /threads/${tid}/runs/stream` });
    await request(a).get(`/agents/${dep}/nothing-here`).expect(404, { detail: "Not Found" });
  });
});

describe("reset and deletion while runs are in flight", () => {
  it("deleting a busy thread cancels its run; reset() forgets runs and threads and the mock keeps working", async () => {
    const a = app();
    const tid = await newThread(a);
    const { run_id } = (await request(a).post(`/threads/${tid}/runs`).send({ assistant_id: "agent", input: { slow: true, tag: "x" } }).expect(200)).body;
    await waitFor(() => statusOf(a, run_id) === "running");
    await request(a).delete(`/threads/${tid}`).expect(204);
    await request(a).get(`/threads/${tid}/runs/${run_id}`).expect(404);

    const again = await newThread(a);
    const second = (await request(a).post(`/threads/${again}/runs`).send({ assistant_id: "agent", input: { slow: true, tag: "y" } }).expect(200)).body.run_id;
    await waitFor(() => statusOf(a, second) === "running");
    mockOf(a).reset();
    await request(a).get(`/threads/${again}`).expect(404);
    expect((await request(a).get("/_mock/runs")).body).toEqual({ items: [], count: 0 });
    const fresh = await newThread(a);
    await request(a).post(`/threads/${fresh}/runs`).send({ assistant_id: "agent", input: { tag: "z" }, multitask_strategy: "reject" }).expect(200);
  });
});
