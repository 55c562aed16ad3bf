import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-1";
import { startMockServer, type MockServer } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { openLiveStream, sseEvents } from "../support/sse.js";

const quick: ScenarioInput = { name: "quick", events: [{ event: "values", data: { n: "{{input.n}}" } }] };

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 8, fixtures: false, scenarios: [quick], clock: { autoAdvance: false } });
});
beforeEach(() => mock.control.reset());
afterAll(async () => {
  await mock.close();
});

/** Opens a thread stream over a real socket (test/support/sse.ts `openLiveStream`), its events parsed. */
async function openThreadStream(path: string, headers: Record<string, string> = {}) {
  const stream = await openLiveStream(`${mock.url}${path}`, { headers });
  return { ...stream, events: () => sseEvents(stream.text()) };
}

async function newThread(): Promise<string> {
  return (await request(mock.url).post("/threads").send({}).expect(200)).body.thread_id;
}
async function runOn(threadId: string, n: number): Promise<string> {
  const res = await request(mock.url).post(`/threads/${threadId}/runs/wait`).send({ assistant_id: "agent", input: { n } }).expect(200);
  return String(res.headers["content-location"]).split("/").at(-1) as string;
}

describe("GET /threads/{id}/stream", () => {
  it("streams each run on the thread, closed by run_done, and state updates when asked; no id lines", async () => {
    const tid = await newThread();
    // The default (`run_modes`) leaves state updates out.
    const stream = await openThreadStream(`/threads/${tid}/stream?stream_modes=run_modes,state_update`);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const first = await runOn(tid, 1);
    await stream.until(`"run_done","run_id":"${first}"`);
    const second = await runOn(tid, 2);
    await stream.until(`"run_done","run_id":"${second}"`);
    await request(mock.url).post(`/threads/${tid}/state`).send({ values: { n: 3 }, as_node: "agent" }).expect(200);
    await stream.until("event: state_update");
    await stream.close();

    const events = stream.events();
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "metadata", "metadata", "values", "metadata", "state_update"]);
    expect(events[0]!.data).toEqual({ run_id: first, attempt: 1 });
    expect(events[1]!.data).toEqual({ n: 1 });
    expect(events[2]!.data).toEqual({ status: "run_done", run_id: first });
    expect(events[4]!.data).toEqual({ n: 2 });
    expect(events[6]!.data).toMatchObject({ thread_id: tid, state: { values: { n: 3 }, metadata: { source: "update" } } });
    expect(events.every((e) => e.id === null)).toBe(true);
  });

  it("filters by stream_modes (lifecycle, state_update) and replays the thread's runs with Last-Event-ID '-'", async () => {
    const tid = await newThread();
    const done = await runOn(tid, 1);
    const lifecycle = await openThreadStream(`/threads/${tid}/stream?stream_modes=lifecycle,state_update`, { "Last-Event-ID": "-" });
    await lifecycle.until(`"run_done","run_id":"${done}"`);
    await request(mock.url).post(`/threads/${tid}/state`).send({ values: { n: 5 } }).expect(200);
    await lifecycle.until("event: state_update");
    await lifecycle.close();
    expect(lifecycle.events().map((e) => [e.event, e.data])).toEqual([
      ["metadata", { run_id: done, attempt: 1 }],
      ["metadata", { status: "run_done", run_id: done }],
      ["state_update", expect.objectContaining({ thread_id: tid })],
    ]);

    // Without Last-Event-ID a finished run is not replayed.
    const live = await openThreadStream(`/threads/${tid}/stream`);
    const next = await runOn(tid, 2);
    await live.until(`"run_done","run_id":"${next}"`);
    await live.close();
    expect(live.text()).not.toContain(done);
  });

  it("ends when a reset takes its thread away (a seeded mock hands the same id out again)", async () => {
    const tid = await newThread();
    const res = await fetch(`${mock.url}/threads/${tid}/stream`);
    expect(res.status).toBe(200);
    const body = res.text();
    mock.control.reset();
    expect(await body).toBe("");
    expect(await newThread()).toBe(tid);
  });

  it("refuses unknown modes, bad Last-Event-IDs and missing threads", async () => {
    const tid = await newThread();
    await request(mock.url).get(`/threads/${tid}/stream?stream_modes=everything`).expect(422, { detail: "Invalid stream mode: everything" });
    await request(mock.url).get(`/threads/${tid}/stream`).set("Last-Event-ID", "7").expect(422, { detail: "Invalid last-event-id: must be a valid Redis stream ID" });
    await request(mock.url).get("/threads/00000000-0000-4000-8000-000000000000/stream").expect(404, { detail: "Not Found" });
  });
});

describe.each([
  ["@langchain/langgraph-sdk 2.0.0", (url: string) => new Client2({ apiUrl: url })],
  ["@langchain/langgraph-sdk 1.15", (url: string) => new Client1({ apiUrl: url }) as unknown as InstanceType<typeof Client2>],
])("threads.joinStream through %s", (_name, makeClient) => {
  it("yields the runs' events on the thread (replayed from the start with lastEventId '-') until the caller stops", async () => {
    const client = makeClient(mock.url);
    const thread = await client.threads.create();
    const runId = await runOn(thread.thread_id, 4);
    const abort = new AbortController();
    const parts: { event: string; data: unknown }[] = [];
    try {
      for await (const part of client.threads.joinStream(thread.thread_id, { signal: abort.signal, lastEventId: "-" })) {
        parts.push(part as { event: string; data: unknown });
        if ((part.data as { status?: string } | null)?.status === "run_done") abort.abort();
      }
    } catch {
      // aborted by the loop above
    }
    expect(parts).toEqual([
      { event: "metadata", data: { run_id: runId, attempt: 1 } },
      { event: "values", data: { n: 4 } },
      { event: "metadata", data: { status: "run_done", run_id: runId } },
    ]);
  });
});
