import { afterEach, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@langchain/langgraph-sdk";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { parseSse, rawRequest, rawText, sseEvents } from "../support/sse.js";
import { waitFor } from "./helpers.js";
import { newThread } from "../support/agent-server.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";
import { feedbackTokensIn } from "../../src/tracing/feedback-tokens.js";

const BASE = "http://mock.test";

const hello: ScenarioInput = {
  name: "hello",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "hello" } }] } },
  events: [
    { event: "values", data: { messages: [{ type: "human", content: "{{input.messages.0.content}}" }] } },
    { event: "updates", data: { agent: { messages: [{ type: "ai", id: "ai-1", content: "Hi!" }] } } },
    { event: "messages", data: [{ type: "AIMessageChunk", id: "ai-1", content: "Hi!" }, { langgraph_node: "agent" }] },
    { event: "custom", data: { progress: 1 } },
    { event: "updates|sub:1", data: { inner: { x: 1 } } },
  ],
};

function app(scenarios: ScenarioInput[] = [hello], extra: Record<string, unknown> = {}) {
  return createApp({ seed: 7, fixtures: false, publicUrl: BASE, scenarios, ...extra });
}

function stream(a: ReturnType<typeof app>, path: string, body: Record<string, unknown>) {
  return request(a).post(path).send(body).buffer(true).parse(rawText);
}

const input = (content: string) => ({ messages: [{ role: "user", content }] });

describe("the run stream on the wire", () => {
  it("frames every event with CRLF, compact JSON and no id line (not resumable), then the feedback event, with the real headers", async () => {
    const a = app();
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: input("hello there"), stream_mode: ["values", "updates"], feedback_keys: ["user_liked", "user_disliked"] }).expect(200);
    const [run] = runsIn(contextOf(mockOf(a))).values();
    const rid = run!.run_id;
    const tokens = [...feedbackTokensIn(contextOf(mockOf(a))).values()];
    const url = (key: string) => `${BASE}/api/v1/feedback/tokens/${tokens.find((t) => t.feedback_key === key)!.id}`;
    expect(res.body).toBe(
      `event: metadata\r\ndata: {"run_id":"${rid}","attempt":1}\r\n\r\n` +
        `event: values\r\ndata: {"messages":[{"type":"human","content":"hello there"}]}\r\n\r\n` +
        `event: updates\r\ndata: {"agent":{"messages":[{"type":"ai","id":"ai-1","content":"Hi!"}]}}\r\n\r\n` +
        `event: feedback\r\ndata: {"user_liked":"${url("user_liked")}","user_disliked":"${url("user_disliked")}"}\r\n\r\n`,
    );
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-accel-buffering"]).toBe("no");
    expect(res.headers["content-location"]).toBe(`/threads/${tid}/runs/${rid}`);
    expect(res.headers.location).toBe(`/threads/${tid}/runs/${rid}/stream`);
    expect(rid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    // The run is terminal by the time the stream has closed.
    const got = await request(a).get(`/threads/${tid}/runs/${rid}`).expect(200);
    expect(got.body.status).toBe("success");
    expect(tokens.map((t) => t.feedback_key)).toEqual(["user_liked", "user_disliked"]);
    expect(tokens[0]).toMatchObject({ run_id: rid, thread_id: tid, scenario: "hello", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" });
  });

  it("sends only values by default, no feedback event without feedback_keys, and no end event", async () => {
    const a = app();
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: input("hello") }).expect(200);
    expect(sseEvents(res.body).map((e) => e.event)).toEqual(["metadata", "values"]);
  });

  it("messages-tuple asks for messages; custom and subgraph events need their mode and stream_subgraphs", async () => {
    const a = app();
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: input("hello"), stream_mode: ["messages-tuple", "custom", "updates"], stream_subgraphs: true }).expect(200);
    expect(sseEvents(res.body).map((e) => [e.event, e.id])).toEqual([["metadata", null], ["updates", null], ["messages", null], ["custom", null], ["updates|sub:1", null]]);
    const legacy = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: input("hello"), stream_mode: "messages" }).expect(200);
    // The turn scripts no legacy `messages/*` events: they are derived from the message the agent node writes.
    const legacyEvents = sseEvents(legacy.body);
    expect(legacyEvents.map((e) => e.event)).toEqual(["metadata", "messages/metadata", "messages/complete"]);
    expect((legacyEvents[1]!.data as Record<string, { metadata: unknown }>)["ai-1"]!.metadata).toMatchObject({ langgraph_node: "agent", langgraph_step: 4 }); // the thread's second run: steps count on from the first's (input 2, start 3)
    expect(legacyEvents[2]!.data).toEqual([{ content: "Hi!", additional_kwargs: {}, response_metadata: {}, type: "ai", name: null, id: "ai-1", tool_calls: [], invalid_tool_calls: [], usage_metadata: null }]);
  });

  it("a stateless run (POST /runs/stream) has no id lines, no Location and Content-Location /runs/{id}", async () => {
    const a = app();
    const res = await stream(a, "/runs/stream", { assistant_id: "agent", input: input("hello"), feedback_keys: ["k"] }).expect(200);
    const blocks = parseSse(res.body);
    expect(blocks.map((b) => (b.kind === "event" ? [b.event, b.id] : b.kind))).toEqual([["metadata", null], ["values", null], ["feedback", null]]);
    const rid = (sseEvents(res.body)[0]!.data as { run_id: string }).run_id;
    expect(res.headers["content-location"]).toBe(`/runs/${rid}`);
    expect(res.headers.location).toBeUndefined();
    // The temporary thread is gone after the run (on_completion "delete").
    const run = (await request(a).get(`/_mock/runs/${rid}`).expect(200)).body;
    expect(run).toMatchObject({ stateless: true, status: "success", kwargs: { temporary: true } });
    await request(a).get(`/threads/${run.thread_id}`).expect(404, { detail: "Not Found" });
  });

  it("feedback keys named __proto__ and constructor get their URLs like any other key", async () => {
    const a = app();
    const res = await stream(a, "/runs/stream", { assistant_id: "agent", input: input("hello"), feedback_keys: ["__proto__", "constructor", "ok"] }).expect(200);
    const feedback = parseSse(res.body).find((b) => b.kind === "event" && b.event === "feedback");
    const data = feedback?.kind === "event" ? (feedback.data as string) : "";
    expect(data).toMatch(/^\{"__proto__":"http:\/\/mock\.test\/api\/v1\/feedback\/tokens\/[0-9a-f-]{36}","constructor":"http:\/\/mock\.test\/api\/v1\/feedback\/tokens\/[0-9a-f-]{36}","ok":"http:\/\/mock\.test\/api\/v1\/feedback\/tokens\/[0-9a-f-]{36}"\}$/);
  });

  it("an error ending sends error {error, message} last, no feedback, and marks run and thread as error", async () => {
    const a = app([{ name: "boom", events: [{ event: "values", data: { n: 1 } }], end: { error: { error: "ValueError", message: "boom" } } }]);
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: {}, feedback_keys: ["k"] }).expect(200);
    expect(res.body.endsWith(`event: error\r\ndata: {"error":"ValueError","message":"boom"}\r\n\r\n`)).toBe(true);
    expect(sseEvents(res.body).map((e) => e.event)).toEqual(["metadata", "values", "error"]);
    const thread = (await request(a).get(`/threads/${tid}`)).body;
    expect(thread).toMatchObject({ status: "error", values: { n: 1 } });
    const [run] = (await request(a).get(`/threads/${tid}/runs`)).body;
    expect(run.status).toBe("error");
    expect(feedbackTokensIn(contextOf(mockOf(a))).size).toBe(0);
  });

  it("an interrupt ending sends __interrupt__ in updates and in values, each when asked for, and leaves the thread interrupted", async () => {
    const scenario = { name: "ask", events: [{ event: "values", data: { draft: "x" } }], end: { interrupt: { value: { question: "Send?" }, id: "int-1", node: "review" } } };
    const a = app([scenario]);
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: {}, stream_mode: ["updates", "values"], feedback_keys: ["k"] }).expect(200);
    expect(sseEvents(res.body).map((e) => [e.event, e.data])).toEqual([
      ["metadata", expect.any(Object)],
      ["values", { draft: "x" }],
      ["updates", { __interrupt__: [{ value: { question: "Send?" }, id: "int-1" }] }],
      ["values", { __interrupt__: [{ value: { question: "Send?" }, id: "int-1" }] }],
      ["feedback", { k: expect.stringMatching(/^http:\/\/mock\.test\/api\/v1\/feedback\/tokens\/[0-9a-f-]{36}$/) }],
    ]);
    const thread = (await request(a).get(`/threads/${tid}`)).body;
    expect(thread.status).toBe("interrupted");
    expect(Object.values(thread.interrupts)).toEqual([[{ value: { question: "Send?" }, id: "int-1" }]]);
    const state = (await request(a).get(`/threads/${tid}/state`).expect(200)).body;
    expect(state).toMatchObject({ values: { draft: "x" }, next: ["review"], interrupts: [{ value: { question: "Send?" }, id: "int-1" }] });
    expect(state.tasks[0]).toMatchObject({ name: "review", interrupts: [{ id: "int-1" }] });

    const b = app([scenario]);
    const tid2 = await newThread(b);
    const onlyValues = await stream(b, `/threads/${tid2}/runs/stream`, { assistant_id: "agent", input: {} }).expect(200);
    expect(sseEvents(onlyValues.body).map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    expect(sseEvents(onlyValues.body)[2]!.data).toEqual({ __interrupt__: [{ value: { question: "Send?" }, id: "int-1" }] });
  });

  it("an http ending refuses the run before streaming with its status and detail", async () => {
    const a = app([{ name: "busy", end: { http: { status: 429, detail: "Rate limited" } } }]);
    const tid = await newThread(a);
    await request(a).post(`/threads/${tid}/runs/stream`).send({ assistant_id: "agent" }).expect(429, { detail: "Rate limited" });
    expect((await request(a).get(`/threads/${tid}/runs`)).body).toEqual([]);
  });

  it("a request no scenario matches is a 422 naming each scenario and why", async () => {
    const a = app([hello, { name: "only-bob", match: { metadata: { user: "bob" } } }, { name: "other-graph", graph_id: "weather-bot" }]);
    const tid = await newThread(a);
    const res = await request(a).post(`/threads/${tid}/runs/stream`).send({ assistant_id: "agent", input: input("bye"), metadata: { user: "alice" } }).expect(422);
    expect(res.body.detail).toBe(
      `No scenario matches this run (POST /threads/${tid}/runs/stream, assistant 'agent'). Why each loaded scenario did not match:\n` +
        `- hello: input.messages[0].content does not contain "hello"\n` +
        `- only-bob: metadata.user is "alice", not "bob"\n` +
        `- other-graph: the run is on graph "agent", the scenario on "weather-bot"`,
    );
  });

  it("fills templates from the request, the run and the seeded faker, keeping the type of whole-value templates", async () => {
    const a = app([
      {
        name: "echo",
        events: [
          {
            event: "values",
            data: { run: "{{run_id}}", thread: "{{thread_id}}", turn: "{{turn}}", input: "{{input}}", said: "You said {{input.text}} ({{metadata.n}})", name: "{{faker.person.firstName}}", msg: "{{id.m}}", cfg: "{{config.configurable.user}}", keyed: { "m-{{id.m}}": 1, "{{turn}}": "t" } },
          },
        ],
      },
    ]);
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: { text: "hi", n: [1, 2] }, metadata: { n: 3 }, config: { configurable: { user: "u1" } } }).expect(200);
    const [meta, values] = sseEvents(res.body);
    const data = values!.data as Record<string, unknown>;
    expect(data).toMatchObject({ run: (meta!.data as { run_id: string }).run_id, thread: tid, turn: 1, input: { text: "hi", n: [1, 2] }, said: "You said hi (3)", cfg: "u1" });
    expect(data.name).toMatch(/^[A-Z][a-z]+/);
    expect(data.msg).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5/);
    // Keys are templated too, always as text.
    expect(data.keyed).toEqual({ [`m-${String(data.msg)}`]: 1, "1": "t" });
    expect(() => createApp({ fixtures: false, scenarios: [{ name: "bad-key", events: [{ event: "values", data: { "{{nope}}": 1 } }] }] })).toThrow("{{nope}}");
    const b = app([{ name: "needs-text", events: [{ event: "values", data: { t: "{{input.text}}" } }] }]);
    const tid2 = await newThread(b);
    const bad = await request(b).post(`/threads/${tid2}/runs/stream`).send({ assistant_id: "agent", input: {} }).expect(422);
    expect(bad.body.detail).toBe("Scenario 'needs-text' cannot be played for this run: template {{input.text}} at /0/data/t has no value in this run's request (input is {})");
    // An event name cannot carry a line break: it would forge SSE fields.
    const c = app([{ name: "ns", events: [{ event: "updates|{{input.ns}}", data: {} }] }]);
    const tid3 = await newThread(c);
    const forged = await request(c).post(`/threads/${tid3}/runs/stream`).send({ assistant_id: "agent", input: { ns: "x\r\ndata: {}\r\n\r\nevent: error" }, stream_mode: "updates", stream_subgraphs: true }).expect(422);
    expect(forged.body.detail).toBe('Scenario \'ns\' cannot be played for this run: event name at /0/event is "updates|x\\r\\ndata: {}\\r\\n\\r\\nevent: error" in this run; an SSE event name is one line');
    expect(() => createApp({ fixtures: false, scenarios: [{ name: "nl", events: [{ event: "updates|a\nb", data: {} }] }] })).toThrow("/events/0/event: not a stream event name");
  });

  it("sends a heartbeat comment every heartbeatMs of mock time while a scenario waits", async () => {
    const mock = await startMockServer({ seed: 1, fixtures: false, heartbeatMs: 1000, clock: { autoAdvance: false }, scenarios: [{ name: "slow", events: [{ event: "values", data: { a: 1 }, delay_ms: 2500 }] }] });
    try {
      const tid = await threadOn(mock.url);
      const pending = rawRequest(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", body: { assistant_id: "agent" } });
      await waitFor(() => runsIn(contextOf(mock.control)).values().next().value?.status === "running");
      for (let i = 0; i < 3; i++) {
        mock.clock.advance(1000);
        await new Promise((r) => setImmediate(r));
      }
      const res = await pending;
      expect(parseSse(res.body).map((b) => (b.kind === "comment" ? `:${b.text}` : b.event))).toEqual(["metadata", ":heartbeat", ":heartbeat", "values"]);
      expect(res.body).toContain(`\r\n\r\n: heartbeat\r\n\r\n: heartbeat\r\n\r\nevent: values`);
    } finally {
      await mock.close();
    }
  });

  it("SDK 2.x sees no empty part for a heartbeat on a stream that is not resumable (no id lines)", async () => {
    const mock = await startMockServer({ seed: 1, fixtures: false, heartbeatMs: 1000, clock: { autoAdvance: false }, scenarios: [{ name: "slow", events: [{ event: "values", data: { a: 1 }, delay_ms: 2500 }] }] });
    try {
      const client = new Client({ apiUrl: mock.url });
      const play = async (streamResumable: boolean) => {
        const thread = await client.threads.create();
        const parts: { event: string; data: unknown }[] = [];
        const done = (async () => {
          for await (const part of client.runs.stream(thread.thread_id, "agent", { input: {}, streamResumable })) parts.push({ event: part.event, data: part.data });
        })();
        await waitFor(() => [...runsIn(contextOf(mock.control)).values()].at(-1)?.status === "running");
        for (let i = 0; i < 3; i++) {
          mock.clock.advance(1000);
          await new Promise((r) => setImmediate(r));
        }
        await done;
        return parts;
      };
      expect(await play(false)).toEqual([
        { event: "metadata", data: expect.objectContaining({ attempt: 1 }) },
        { event: "values", data: { a: 1 } },
      ]);
      // With ids (a resumable run, as on production), 2.x's decoder repeats the last id on the blank
      // line after each heartbeat comment: the empty parts the issue saw.
      expect((await play(true)).filter((p) => p.event === "")).toEqual([
        { event: "", data: null },
        { event: "", data: null },
      ]);
    } finally {
      await mock.close();
    }
  });

  it("a stateless run's templates see its temporary thread's id", async () => {
    const a = app([{ name: "where", events: [{ event: "values", data: { thread: "{{thread_id}}" } }] }]);
    const res = await stream(a, "/runs/stream", { assistant_id: "agent", input: {}, on_completion: "keep" }).expect(200);
    const rid = (sseEvents(res.body)[0]!.data as { run_id: string }).run_id;
    const run = (await request(a).get(`/_mock/runs/${rid}`).expect(200)).body;
    expect(run.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sseEvents(res.body)[1]!.data).toEqual({ thread: run.thread_id });
  });

  it("a disconnect ending drops the connection without a terminal event; the run ends as error", async () => {
    const mock = await startMockServer({ seed: 1, fixtures: false, scenarios: [{ name: "drop", events: [{ event: "values", data: { a: 1 } }], end: "disconnect" }] });
    try {
      const tid = await threadOn(mock.url);
      const res = await rawRequest(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", body: { assistant_id: "agent", feedback_keys: ["k"] } });
      expect(res.complete).toBe(false);
      expect(res.body).toMatch(/^event: metadata\r\n.*\r\n\r\nevent: values\r\ndata: \{"a":1\}\r\n\r\n$/s);
      const run = runsIn(contextOf(mock.control)).values().next().value;
      expect(run).toMatchObject({ status: "error", error: { error: "ConnectionError" } });
      expect(await (await fetch(`${mock.url}/threads/${tid}`)).json()).toMatchObject({ status: "error", values: { a: 1 }, interrupts: {} });
      expect(await (await fetch(`${mock.url}/ok`)).json()).toEqual({ ok: true });
    } finally {
      await mock.close();
    }
  });

  it("is byte-identical across two mocks with the same seed and the same requests", async () => {
    const transcript = async () => {
      const a = app([hello, { name: "rand", priority: -1, events: [{ event: "values", data: { who: "{{faker.person.fullName}}", id: "{{uuid}}", at: "{{now}}" } }] }]);
      const out: string[] = [];
      const tid = await newThread(a);
      out.push(tid);
      for (const text of ["hello", "other"]) {
        const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: input(text), feedback_keys: ["a", "b"] });
        out.push(res.headers["content-location"] as string, res.body);
      }
      out.push(JSON.stringify((await request(a).get("/_mock/runs")).body));
      return out;
    };
    const first = await transcript();
    expect(await transcript()).toEqual(first);
    expect(first.join("")).toContain("feedback/tokens/");
  });

  it("faker's dates count from the mock's clock, not the machine's", async () => {
    const a = app([{ name: "dates", events: [{ event: "values", data: { recent: "{{faker.date.recent}}", soon: "{{faker.date.soon}}", at: "{{now}}" } }] }]);
    const tid = await newThread(a);
    const res = await stream(a, `/threads/${tid}/runs/stream`, { assistant_id: "agent", input: {} }).expect(200);
    const data = sseEvents(res.body)[1]!.data as { recent: string; soon: string; at: string };
    const now = Date.parse(data.at);
    expect(data.at).toBe("2026-01-15T09:00:00.000000+00:00");
    expect(Date.parse(data.recent)).toBeLessThanOrEqual(now);
    expect(Date.parse(data.recent)).toBeGreaterThanOrEqual(now - 86_400_000);
    expect(Date.parse(data.soon)).toBeGreaterThanOrEqual(now);
    expect(Date.parse(data.soon)).toBeLessThanOrEqual(now + 86_400_000);
  });
});

describe("on_disconnect", () => {
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it("'cancel' interrupts the run when the client leaves; 'continue' lets it finish", async () => {
    mock = await startMockServer({ seed: 3, fixtures: false, clock: { autoAdvance: false }, scenarios: [{ name: "slow", events: [{ event: "values", data: { a: 1 }, delay_ms: 60_000 }] }] });
    const runs = runsIn(contextOf(mock.control));
    const statuses = async (onDisconnect: string) => {
      const tid = await threadOn(mock!.url);
      const controller = new AbortController();
      const res = await fetch(`${mock!.url}/threads/${tid}/runs/stream`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ assistant_id: "agent", on_disconnect: onDisconnect }), signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await waitFor(() => [...runs.values()].at(-1)?.status !== "running" || onDisconnect === "continue");
      const before = [...runs.values()].at(-1)!.status;
      mock!.clock.advance(60_000);
      await waitFor(() => [...runs.values()].at(-1)?.status !== "running");
      return [before, [...runs.values()].at(-1)!.status, ((await (await fetch(`${mock!.url}/threads/${tid}`)).json()) as { status: string }).status];
    };
    expect(await statuses("cancel")).toEqual(["interrupted", "interrupted", "idle"]);
    expect(await statuses("continue")).toEqual(["running", "success", "idle"]);
  });
});

describe("closing the mock", () => {
  it("cancels runs still playing, so no delay timer outlives the server", async () => {
    // No seed: the real clock, whose sleeps are timers that would keep the process alive.
    const mock = await startMockServer({ fixtures: false, scenarios: [{ name: "slow", events: [{ event: "values", data: { a: 1 }, delay_ms: 600_000 }] }] });
    const tid = await threadOn(mock.url);
    const res = await fetch(`${mock.url}/threads/${tid}/runs/stream`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ assistant_id: "agent" }) });
    await res.body!.getReader().read();
    const runs = runsIn(contextOf(mock.control));
    await waitFor(() => [...runs.values()][0]?.status === "running");
    await mock.close();
    await waitFor(() => [...runs.values()][0]?.status !== "running");
    expect([...runs.values()][0]!.status).toBe("interrupted");
  });
});

async function threadOn(url: string): Promise<string> {
  const res = await fetch(`${url}/threads`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  return ((await res.json()) as { thread_id: string }).thread_id;
}
