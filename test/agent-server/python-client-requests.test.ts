import { beforeAll, beforeEach, expect, it } from "vitest";
import request from "supertest";
import { createApp, mockOf } from "../../src/index.js";
import { rawText, sseEvents } from "../support/sse.js";

/**
 * Requests exactly as the Python client (`langgraph_sdk`) sends them, where they differ from the JS
 * SDK's: the mock must answer them as the Python server does. (The Python client is not installed
 * here — no PyPI — so the requests are written out as it sends them.)
 */
let a: ReturnType<typeof createApp>;
const scenario = { name: "hello", match: { assistant_id: "agent" }, events: [{ event: "values", data: { done: true } }] };

beforeAll(() => {
  a = createApp({ seed: 5, fixtures: false, scenarios: [scenario] });
});
beforeEach(() => mockOf(a).reset());

it("runs.join_stream(thread_id, run_id) sends `?stream_mode=`: an empty value is as absent, not a 422", async () => {
  const thread = (await request(a).post("/threads").send({}).expect(200)).body.thread_id;
  const run = (await request(a).post(`/threads/${thread}/runs`).send({ assistant_id: "agent", stream_mode: ["values"], stream_resumable: true }).expect(200)).body;
  await request(a).get(`/threads/${thread}/runs/${run.run_id}/join`).expect(200);
  const res = await request(a).get(`/threads/${thread}/runs/${run.run_id}/stream?stream_mode=&cancel_on_disconnect=false`).buffer(true).parse(rawText);
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
  expect(sseEvents(res.body as string).map((e) => e.event)).toEqual(["metadata", "values"]);
  // A named mode still narrows the join, and a mode that does not exist is still refused.
  const narrowed = await request(a).get(`/threads/${thread}/runs/${run.run_id}/stream?stream_mode=updates`).buffer(true).parse(rawText);
  expect(sseEvents(narrowed.body as string).map((e) => e.event)).toEqual(["metadata"]);
  await request(a).get(`/threads/${thread}/runs/${run.run_id}/stream?stream_mode=bogus`).expect(422);
});

it("crons.search and crons.count filter on metadata, as the current server does", async () => {
  const cron = (metadata: object) => request(a).post("/runs/crons").send({ assistant_id: "agent", schedule: "0 9 * * *", metadata }).expect(200);
  const nightly = (await cron({ kind: "digest", team: "ops" })).body.cron_id;
  await cron({ kind: "report" });
  const found = (await request(a).post("/runs/crons/search").send({ metadata: { kind: "digest" } }).expect(200)).body;
  expect(found.map((c: { cron_id: string }) => c.cron_id)).toEqual([nightly]);
  await request(a).post("/runs/crons/count").send({ metadata: { kind: "digest" } }).expect(200, "1");
  await request(a).post("/runs/crons/count").send({ metadata: {} }).expect(200, "2");
  await request(a).post("/runs/crons/count").send({ metadata: { kind: "none" } }).expect(200, "0");
});

it("the state model through the Python client's requests: runs.stream with node updates only, get_state, a second run, get_history", async () => {
  const b = createApp({
    seed: 5,
    fixtures: false,
    scenarios: [{ name: "echo-steps", steps: [{ node: "agent", update: { messages: [{ type: "ai", id: "ai-{{run_id}}", content: "You said: {{input.messages.0.content}}" }] } }] }],
  });
  const thread = (await request(b).post("/threads").send({}).expect(200)).body.thread_id as string;
  // `client.runs.stream(thread_id, "agent", input=..., stream_mode=[...])`: the SDK drops the None fields.
  const stream = (content: string) =>
    request(b)
      .post(`/threads/${thread}/runs/stream`)
      .send({ input: { messages: [{ role: "user", content }] }, stream_mode: ["values", "updates", "messages-tuple"], stream_subgraphs: false, stream_resumable: false, assistant_id: "agent" })
      .buffer(true)
      .parse(rawText);
  const first = sseEvents((await stream("hi")).body as string);
  expect(first.map((e) => e.event)).toEqual(["metadata", "values", "messages", "updates", "values"]);
  const [, input, tuple, update, after] = first.map((e) => e.data as any);
  expect(input.messages.map((m: { type: string; content: string }) => [m.type, m.content])).toEqual([["human", "hi"]]);
  expect(tuple[0]).toMatchObject({ type: "ai", content: "You said: hi" });
  expect(tuple[1]).toMatchObject({ langgraph_node: "agent", langgraph_step: 1 });
  expect(Object.keys(update)).toEqual(["agent"]);
  expect(after.messages.map((m: { content: string }) => m.content)).toEqual(["hi", "You said: hi"]);
  // `client.threads.get_state(thread_id)`, then a second run appends to the same messages.
  expect((await request(b).get(`/threads/${thread}/state`).expect(200)).body.values).toEqual(after);
  await stream("again");
  const state = (await request(b).get(`/threads/${thread}/state`).expect(200)).body;
  expect(state.values.messages.map((m: { content: string }) => m.content)).toEqual(["hi", "You said: hi", "again", "You said: again"]);
  // `client.threads.get_history(thread_id, limit=10)`: newest first, the state after each step.
  const history = (await request(b).post(`/threads/${thread}/history`).send({ limit: 10 }).expect(200)).body as { values: { messages?: unknown[] }; metadata: { step: number; source: string } }[];
  expect(history.map((h) => [h.metadata.source, h.metadata.step, h.values.messages?.length ?? 0])).toEqual([
    ["loop", 4, 4],
    ["loop", 3, 3],
    ["input", 2, 2],
    ["loop", 1, 2],
    ["loop", 0, 1],
    ["input", -1, 0],
  ]);
});

it("runs.list(thread_id, select=[...]) sends repeated `select` query keys: each run is cut to those fields", async () => {
  const thread = (await request(a).post("/threads").send({}).expect(200)).body.thread_id;
  await request(a).post(`/threads/${thread}/runs/wait`).send({ assistant_id: "agent" }).expect(200);
  const [run] = (await request(a).get(`/threads/${thread}/runs`).expect(200)).body as { run_id: string }[];
  // httpx writes a list parameter as one key per item.
  const res = await request(a).get(`/threads/${thread}/runs?limit=10&offset=0&select=run_id&select=status`).expect(200);
  expect(res.body).toEqual([{ run_id: run?.run_id, status: "success" }]);
  await request(a).get(`/threads/${thread}/runs?limit=10&offset=0&select=bogus`).expect(422);
});

it("crons.update(cron_id, end_time=None) sends `\"end_time\": null`, which clears the cron's end time", async () => {
  const cron = (await request(a).post("/runs/crons").send({ assistant_id: "agent", schedule: "0 9 * * *", end_time: "2027-01-01T00:00:00+00:00" }).expect(200)).body;
  expect(cron.end_time).toBe("2027-01-01T00:00:00.000000+00:00");
  // The SDK strips the other None fields and puts the explicit null back (langgraph_sdk `CronClient.update`).
  const updated = (await request(a).patch(`/runs/crons/${cron.cron_id}`).send({ end_time: null }).expect(200)).body;
  expect(updated.end_time).toBeNull();
  expect(updated.schedule).toBe("0 9 * * *");
  // Left out, it stays as it is.
  await request(a).patch(`/runs/crons/${cron.cron_id}`).send({ end_time: "2027-06-01T00:00:00+00:00" }).expect(200);
  expect((await request(a).patch(`/runs/crons/${cron.cron_id}`).send({ enabled: true }).expect(200)).body.end_time).toBe("2027-06-01T00:00:00.000000+00:00");
});

it("threads.search(extract={alias: path}) answers each thread with `extracted`, the value at each path", async () => {
  const messages = [{ type: "human", content: "hi" }, { type: "ai", content: "hello" }];
  const supersteps = [{ updates: [{ values: { messages }, as_node: "__start__" }] }];
  const thread = (await request(a).post("/threads").send({ metadata: { user: "alice", graph_id: "agent" }, supersteps }).expect(200)).body.thread_id;
  // `client.threads.search(metadata=..., extract=...)`: limit, offset and the filters as the SDK sends them.
  const body = { metadata: { user: "alice" }, limit: 10, offset: 0, extract: { user: "metadata.user", first: "values.messages[0].content", graph: "metadata.graph_id", none: "values.messages[5]" } };
  const [found] = (await request(a).post("/threads/search").send(body).expect(200)).body;
  expect(found.thread_id).toBe(thread);
  expect(found.extracted).toEqual({ user: "alice", first: "hi", graph: "agent", none: null });
  // With `select`, the selected fields and `extracted`.
  const [selected] = (await request(a).post("/threads/search").send({ ...body, select: ["thread_id"], extract: { last: "values.messages[-1].type" } }).expect(200)).body;
  expect(selected).toEqual({ thread_id: thread, extracted: { last: "ai" } });
  // Without `extract`, no `extracted`; a path outside the thread's JSON columns is refused.
  expect((await request(a).post("/threads/search").send({ ids: [thread] }).expect(200)).body[0]).not.toHaveProperty("extracted");
  await request(a).post("/threads/search").send({ extract: { x: "thread_id" } }).expect(422);
});
