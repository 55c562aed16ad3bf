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
