import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-1";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BAD_FRAME } from "../../src/agent-server/stream-faults.js";
import { rawRequest, sseEvents } from "../support/sse.js";
import { waitFor } from "./helpers.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

// Stream faults (DESIGN §8, docs/faults.md) on the run stream, from fault rules and from a scenario
// turn's `faults`. A real socket: a cut drops the connection.
let mock: MockServer;
const three = { name: "three", match: { input: { three: true } }, events: [1, 2, 3].map((n) => ({ event: "values", data: { n } })) };
const slow = { name: "slow", match: { input: { slow: true } }, events: [{ event: "values", data: { n: 1 } }, { event: "values", data: { n: 2 }, delay_ms: 2500 }] };
const faulty = {
  name: "faulty",
  match: { input: { faulty: true } },
  turns: [
    { events: [{ event: "values", data: { turn: 1 } }], faults: { cut: { after_events: 1 } } },
    { events: [{ event: "values", data: { turn: 2 } }] },
  ],
};

const runs = () => runsIn(contextOf(mock.control));
const lastRun = () => [...runs().values()].at(-1);
const metadataOf = (runId: string) => `event: metadata\r\ndata: {"run_id":"${runId}","attempt":1}\r\n\r\n`;
const values = (data: unknown) => `event: values\r\ndata: ${JSON.stringify(data)}\r\n\r\n`;

async function newThread(): Promise<string> {
  const res = await fetch(`${mock.url}/threads`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  return ((await res.json()) as { thread_id: string }).thread_id;
}

function streamRaw(tid: string, body: Record<string, unknown>) {
  return rawRequest(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", body: { assistant_id: "agent", ...body } });
}

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 5, fixtures: false, heartbeatMs: 1000, clock: { autoAdvance: false }, scenarios: [three, slow, faulty] });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.control.reset();
});

describe("stream faults from fault rules", () => {
  it("cut closes the stream after N events on the wire, metadata included, with no ending; the run goes on", async () => {
    const rule = mock.control.faults.add({ match: { path: "/threads/*/runs/stream" }, fault: { cut: { after_events: 2 } } });
    const tid = await newThread();
    const res = await streamRaw(tid, { input: { three: true } });
    const run = lastRun()!;
    expect(res.status).toBe(200);
    expect(res.complete).toBe(false);
    expect(res.body).toBe(metadataOf(run.run_id) + values({ n: 1 }));
    await waitFor(() => lastRun()?.status === "success");
    expect(rule.fired).toBe(1);
    // The journal records a cut request once the server has seen its socket close.
    await waitFor(() => mock.requests({ route: "runs.stream" }).length === 1);
    expect(mock.requests({ route: "runs.stream" }).map((r) => r.fault)).toEqual([{ id: rule.id, kind: "cut" }]);
  });

  it("error_event writes an error event {error, message} after N events and ends the stream", async () => {
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { error_event: { after_events: 1, error: "UpstreamError", message: "lost the model" } } });
    const tid = await newThread();
    const res = await streamRaw(tid, { input: { three: true } });
    expect(res.complete).toBe(true);
    expect(res.body).toBe(metadataOf(lastRun()!.run_id) + `event: error\r\ndata: {"error":"UpstreamError","message":"lost the model"}\r\n\r\n`);
    // With the defaults of the rule schema.
    mock.control.faults.clear();
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { error_event: { after_events: 0 } } });
    const bare = await streamRaw(tid, { input: { three: true } });
    expect(bare.body).toBe(`event: error\r\ndata: {"error":"InjectedFault","message":"fault injected by agent-platform-mock"}\r\n\r\n`);
  });

  it("bad_frame writes one malformed frame after N events and goes on; SDK 2.x fails on it", async () => {
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { bad_frame: { after_events: 1 } }, times: 1 });
    const tid = await newThread();
    const res = await streamRaw(tid, { input: { three: true } });
    expect(res.complete).toBe(true);
    expect(res.body).toBe(metadataOf(lastRun()!.run_id) + BAD_FRAME + values({ n: 1 }) + values({ n: 2 }) + values({ n: 3 }));
    mock.control.faults.add({ match: { route: "runs.stateless.stream" }, fault: { bad_frame: { after_events: 1 } } });
    const client = new Client2({ apiUrl: mock.url });
    const parts: string[] = [];
    // Stateless: no Location header, so the SDK has nowhere to reconnect and surfaces the parse error.
    await expect(
      (async () => {
        for await (const part of client.runs.stream(null, "agent", { input: { three: true } })) parts.push(part.event);
      })(),
    ).rejects.toThrow(SyntaxError);
    expect(parts).toEqual(["metadata"]);
  });

  it("stall stops writing after N events, heartbeats too, and keeps the connection open", async () => {
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { stall: { after_events: 1 } } });
    const tid = await newThread();
    const controller = new AbortController();
    const res = await fetch(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ assistant_id: "agent", input: { slow: true } }), signal: controller.signal });
    let text = "";
    let ended = false;
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body!) text += decoder.decode(chunk as Uint8Array, { stream: true });
        ended = true;
      } catch {
        // aborted below
      }
    })();
    await waitFor(() => lastRun()?.status === "running");
    for (let i = 0; i < 3; i++) {
      mock.clock.advance(1000);
      await new Promise((r) => setImmediate(r));
    }
    await waitFor(() => lastRun()?.status === "success");
    // One more round trip: anything the stream had written by now has arrived.
    expect(await (await fetch(`${mock.url}/ok`)).json()).toEqual({ ok: true });
    expect(text).toBe(metadataOf(lastRun()!.run_id));
    expect(ended).toBe(false);
    controller.abort();
    await reading;
    expect(ended).toBe(false);
  });
});

describe("the answer's head", () => {
  // The head goes out with the run's first event; a stream with no event to write still shows it.
  it("is sent by a stream cut or stalled before its first event", async () => {
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { cut: { after_events: 0 } }, times: 1 });
    const tid = await newThread();
    const cut = await streamRaw(tid, { input: { three: true } });
    expect(cut.status).toBe(200);
    expect(cut.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(cut.complete).toBe(false);
    expect(cut.body).toBe("");
    await waitFor(() => lastRun()?.status === "success");
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { stall: { after_events: 0 } }, times: 1 });
    const controller = new AbortController();
    const stalled = await fetch(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ assistant_id: "agent", input: { three: true } }), signal: controller.signal });
    expect(stalled.status).toBe(200);
    expect(stalled.headers.get("location")).toMatch(/\/stream$/);
    controller.abort();
  });

  it("is sent by the stream of a run that waits to start", async () => {
    const tid = await newThread();
    const controller = new AbortController();
    const res = await fetch(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ assistant_id: "agent", input: { three: true }, after_seconds: 60 }), signal: controller.signal });
    expect(res.status).toBe(200);
    expect(lastRun()?.status).toBe("pending");
    controller.abort();
  });
});

describe("a scenario turn's faults", () => {
  it("apply to the streams of that turn only", async () => {
    const tid = await newThread();
    const first = await streamRaw(tid, { input: { faulty: true } });
    expect(first.complete).toBe(false);
    expect(sseEvents(first.body).map((e) => e.event)).toEqual(["metadata"]);
    await waitFor(() => lastRun()?.status === "success");
    const second = await streamRaw(tid, { input: { faulty: true } });
    expect(second.complete).toBe(true);
    expect(sseEvents(second.body).map((e) => [e.event, e.data])).toEqual([
      ["metadata", expect.any(Object)],
      ["values", { turn: 2 }],
    ]);
  });

  it("are checked by the scenario schema", async () => {
    await expect(startMockServer({ fixtures: false, scenarios: [{ name: "bad", events: [], faults: { cut: {} } } as never] })).rejects.toThrow("after_events");
  });
});

describe("SDK 1.x and a cut resumable stream", () => {
  it("reconnects to the join stream with Last-Event-ID and gets the rest once", async () => {
    mock.control.faults.add({ match: { route: "runs.stream" }, fault: { cut: { after_events: 2 } } });
    // The SDK's own fetch, watched: a join stream that answered is following the run.
    const sent: { url: string; lastEventId: string | null }[] = [];
    let onJoined = () => {};
    const joined = new Promise<void>((resolve) => (onJoined = resolve));
    const watched: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      sent.push({ url, lastEventId: new Headers(init?.headers).get("last-event-id") });
      const res = await fetch(input, init);
      if (init?.method === "GET" && url.endsWith("/stream")) onJoined();
      return res;
    };
    const client = new Client1({ apiUrl: mock.url, callerOptions: { fetch: watched } });
    const thread = await client.threads.create();
    const parts: { event: string; data: unknown; id?: string }[] = [];
    const done = (async () => {
      for await (const part of client.runs.stream(thread.thread_id, "agent", { input: { slow: true }, streamResumable: true })) parts.push(part as never);
    })();
    // The SDK waits 1–2 s (real time, its own backoff) before it reconnects.
    await joined;
    mock.clock.advance(2500);
    await done;
    expect(parts.map((p) => [p.event, p.data])).toEqual([
      ["metadata", expect.any(Object)],
      ["values", { n: 1 }],
      ["values", { n: 2 }],
    ]);
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    const reconnect = sent.find((s) => s.url.endsWith(`/runs/${runId}/stream`));
    expect(reconnect?.lastEventId).toBe(parts[1]!.id);
    expect(parts[1]!.id).toMatch(/^\d+-1$/);
  });
});
