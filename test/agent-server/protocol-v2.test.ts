import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { startMockServer, type MockServer } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { ProtocolSession, protocolSessions } from "../../src/agent-server/protocol-session.js";
import { ReferenceDocument } from "../support/reference-document.js";
import { openLiveStream } from "../support/sse.js";
import { waitFor } from "./helpers.js";
import { contextOf } from "../../src/mock-control.js";

const human = { type: "human", id: "h1", content: "hi tiny", additional_kwargs: {}, response_metadata: {}, name: null, example: false };
const answer = { type: "ai", id: "a1", content: "Hello", additional_kwargs: {}, response_metadata: {}, name: null, example: false, tool_calls: [], invalid_tool_calls: [] };

/** Two steps a second apart: the transcript test reads every frame of it. */
const tiny: ScenarioInput = {
  name: "tiny",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "tiny" } }] } },
  events: [
    { event: "values", data: { messages: [human] } },
    { event: "updates", delay_ms: 1000, data: { agent: { messages: [answer] } } },
  ],
};

/** Every channel: streamed message chunks, a subgraph, a tool, custom and tasks events. */
const rich: ScenarioInput = {
  name: "rich",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "rich" } }] } },
  events: [
    { event: "messages", data: [{ type: "AIMessageChunk", id: "m1", content: "Hel" }, { langgraph_node: "agent", ls_provider: "openai", ls_model_name: "gpt-4o-mini" }] },
    { event: "messages", data: [{ type: "AIMessageChunk", id: "m1", content: "lo", usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } }, { langgraph_node: "agent" }] },
    { event: "updates", data: { agent: { messages: [{ type: "ai", id: "m1", content: "Hello" }] } } },
    { event: "tools", data: { event: "on_tool_start", toolCallId: "call-1", name: "search", input: { q: "x" } } },
    { event: "tools", data: { event: "on_tool_end", toolCallId: "call-1", output: "found" } },
    { event: "updates|researcher:t1", data: { search: { hits: 2 } } },
    { event: "updates|researcher:t1|reader:t2", data: { read: { pages: 1 } } },
    { event: "custom", data: { name: "progress", payload: 50 } },
    { event: "custom", data: { step: 1 } },
    { event: "tasks", data: { id: "task-1", name: "agent", input: {}, triggers: [] } },
    { event: "values", data: { messages: [{ type: "ai", id: "m1", content: "Hello" }] } },
  ],
};

/** Asks for approval (interrupt `int-1`), then finishes when resumed. */
const approval: ScenarioInput = {
  name: "approval",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "approve" } }] } },
  turns: [
    { events: [{ event: "values", data: { messages: [human] } }], end: { interrupt: { id: "int-1", node: "review", value: { question: "Send?" } } } },
    { events: [{ event: "updates", data: { review: { decision: "approved" } } }], end: "success" },
  ],
};

/** A streamed tool call, then a complete tool message and a complete AI message with a tool call. */
const calls: ScenarioInput = {
  name: "calls",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "call" } }] } },
  events: [
    { event: "messages", data: [{ type: "AIMessageChunk", id: "c1", content: "", tool_call_chunks: [{ name: "search", args: '{"q":', id: "call-1", index: 0 }] }, { langgraph_node: "agent" }] },
    { event: "messages", data: [{ type: "AIMessageChunk", id: "c1", content: "", tool_call_chunks: [{ name: null, args: ' "x"}', id: null, index: 0 }] }, { langgraph_node: "agent" }] },
    { event: "messages", data: [{ type: "tool", id: "t1", tool_call_id: "call-1", content: "found" }, { langgraph_node: "tools" }] },
    { event: "messages", data: [{ type: "ai", id: "c2", content: "Again", tool_calls: [{ id: "call-2", name: "search", args: { q: "y" } }] }, { langgraph_node: "agent" }] },
  ],
};

const failing: ScenarioInput = {
  name: "failing",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "fail" } }] } },
  events: [{ event: "values", data: { step: 1 } }],
  end: { error: { error: "ValueError", message: "boom" } },
};

const reference = new ReferenceDocument("agent-server.openapi.json");
const COMMANDS = "POST /threads/{thread_id}/commands";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 9, fixtures: false, scenarios: [tiny, rich, approval, failing, calls], clock: { autoAdvance: false } });
});
beforeEach(() => mock.control.reset());
afterAll(async () => {
  await mock.close();
});

const input = (content: string) => ({ messages: [{ role: "user", content }] });
let nextThread = 0;
/** A fresh thread id the mock has never seen (the protocol creates the thread on run.start). */
const threadId = () => `00000000-0000-4000-8000-${String(++nextThread).padStart(12, "0")}`;

/** Sends a command and checks the answer against the production document as well as the mock's schema. */
async function command(tid: string, body: unknown, status = 200) {
  const res = await request(mock.url).post(`/threads/${tid}/commands`).send(body as object).expect(status);
  expect(reference.check(COMMANDS, status, res.body)).toEqual([]);
  return res.body;
}

async function runStart(tid: string, content: string, extra: Record<string, unknown> = {}) {
  const body = await command(tid, { id: 1, method: "run.start", params: { assistant_id: "agent", input: input(content), ...extra } });
  expect(body).toMatchObject({ type: "success", id: 1, result: { run_id: expect.any(String) } });
  return body.result.run_id as string;
}

async function runStatus(tid: string, runId: string): Promise<string> {
  return (await request(mock.url).get(`/threads/${tid}/runs/${runId}`).expect(200)).body.status;
}

async function settled(tid: string, runId: string): Promise<void> {
  let status = "";
  for (let i = 0; i < 50 && !["success", "error", "interrupted"].includes(status); i++) status = await runStatus(tid, runId);
  expect(["success", "error", "interrupted"]).toContain(status);
}

/** Opens `POST …/stream/events` over a real socket (test/support/sse.ts `openLiveStream`); `events()` are its event blocks. */
async function openEvents(tid: string, body: unknown, headers: Record<string, string> = {}) {
  const stream = await openLiveStream(`${mock.url}/threads/${tid}/stream/events`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  return { ...stream, events: () => stream.blocks().flatMap((b) => (b.kind === "event" ? [b] : [])) };
}

/** The raw frame the document shows: `id: <seq>`, `event: <method>`, `data: <ProtocolEvent>`. */
function frame(seq: number, method: string, params: Record<string, unknown>): string {
  return `id: ${seq}\r\nevent: ${method}\r\ndata: ${JSON.stringify({ type: "event", event_id: String(seq), seq, method, params })}\r\n\r\n`;
}

describe("POST /threads/{thread_id}/commands", () => {
  it("run.start creates the thread, starts a background run with every protocol mode and answers its run_id with applied_through_seq", async () => {
    const tid = threadId();
    await request(mock.url).get(`/threads/${tid}`).expect(404);
    const body = await command(tid, { id: 7, method: "run.start", params: { assistant_id: "agent", input: input("hi tiny"), metadata: { source: "proto" }, config: { tags: ["t"] } } });
    // The run's root lifecycle (`running`) is event 1, pushed before the answer.
    expect(body).toEqual({ type: "success", id: 7, result: { run_id: expect.any(String) }, meta: { thread_id: tid, applied_through_seq: 1 } });
    const run = (await request(mock.url).get(`/threads/${tid}/runs/${body.result.run_id}`).expect(200)).body;
    expect(run).toMatchObject({ thread_id: tid, assistant_id: expect.any(String), metadata: { source: "proto" }, multitask_strategy: "enqueue" });
    expect(run.kwargs).toMatchObject({ input: input("hi tiny"), command: null, stream_mode: ["values", "updates", "messages-tuple", "tools", "custom", "tasks"], subgraphs: true, resumable: true, config: { tags: ["t"] } });
    mock.control.clock.advance("1s");
    await settled(tid, body.result.run_id);
    // The agent node's update is reduced into the state (add_messages appends its answer).
    const values = (await request(mock.url).get(`/threads/${tid}`).expect(200)).body.values;
    expect(values.messages.map((m: { id: string; type: string }) => [m.type, m.id])).toEqual([["human", "h1"], ["ai", "a1"]]);
  });

  it("answers a malformed envelope with 400 ProtocolError (id null unless the envelope has a valid one); a bad thread id with the agent server's 422", async () => {
    const tid = threadId();
    const needs = "Protocol commands must include an integer id and string method.";
    expect(await command(tid, { method: "run.start" }, 400)).toEqual({ type: "error", id: null, error: "invalid_argument", message: needs });
    expect(await command(tid, { id: -1, method: "run.start" }, 400)).toEqual({ type: "error", id: null, error: "invalid_argument", message: needs });
    expect(await command(tid, { id: 1.5, method: "run.start" }, 400)).toMatchObject({ id: null, error: "invalid_argument" });
    expect(await command(tid, { id: 2, method: 3 }, 400)).toEqual({ type: "error", id: 2, error: "invalid_argument", message: needs });
    expect(await command(tid, { id: 3, method: "run.start", params: [] }, 400)).toEqual({ type: "error", id: 3, error: "invalid_argument", message: "Protocol command params must be an object." });
    expect(await command(tid, [1, 2], 400)).toMatchObject({ id: null, error: "invalid_argument" });
    const notJson = await request(mock.url).post(`/threads/${tid}/commands`).set("content-type", "application/json").send("{nope").expect(400);
    expect(notJson.body).toEqual({ type: "error", id: null, error: "invalid_argument", message: "Protocol commands must be valid JSON." });
    const badId = await request(mock.url).post("/threads/not-a-uuid/commands").send({ id: 1, method: "agent.getTree" }).expect(422);
    expect(badId.body).toEqual({ detail: "Invalid thread ID: must be a UUID" });
  });

  it("run.start: invalid_argument without an assistant_id, for another assistant than the thread's, and when the run is refused", async () => {
    const tid = threadId();
    expect(await command(tid, { id: 1, method: "run.start", params: { input: input("hi tiny") } })).toEqual({
      type: "error",
      id: 1,
      error: "invalid_argument",
      message: "run.start requires an assistant_id.",
      meta: { thread_id: tid, applied_through_seq: 0 },
    });
    const refused = await command(tid, { id: 2, method: "run.start", params: { assistant_id: "agent", input: input("nothing matches") } });
    expect(refused).toMatchObject({ type: "error", id: 2, error: "invalid_argument", message: expect.stringContaining("No scenario matches this run") });
    const runId = await runStart(tid, "hi tiny");
    mock.control.clock.advance("1s");
    await settled(tid, runId);
    expect(await command(tid, { id: 3, method: "run.start", params: { assistant_id: "other", input: input("hi tiny") } })).toMatchObject({
      type: "error",
      id: 3,
      error: "invalid_argument",
      message: `Thread ${tid} is bound to assistant agent; cannot run other.`,
    });
  });

  it("unknown methods are unknown_command (state.get too: the document lists no such method); subscriptions are WebSocket-only (not_supported)", async () => {
    const tid = threadId();
    expect(await command(tid, { id: 1, method: "nope" })).toMatchObject({ type: "error", id: 1, error: "unknown_command", message: "Unknown protocol command: nope" });
    expect(await command(tid, { id: 2, method: "state.get", params: { namespace: [] } })).toMatchObject({ error: "unknown_command" });
    for (const method of ["subscription.subscribe", "subscription.unsubscribe", "subscription.reconnect"]) {
      expect(await command(tid, { id: 3, method, params: { channels: ["values"] } })).toMatchObject({ type: "error", id: 3, error: "not_supported", message: expect.stringContaining("WebSocket") });
    }
  });

  it("agent.getTree: no_such_run before a protocol run; then the root and every subgraph namespace the run went through, with their status", async () => {
    const tid = threadId();
    expect(await command(tid, { id: 1, method: "agent.getTree" })).toMatchObject({ type: "error", id: 1, error: "no_such_run", message: "No active run is bound to this thread." });
    const runId = await runStart(tid, "rich");
    await settled(tid, runId);
    const body = await command(tid, { id: 2, method: "agent.getTree", params: {} });
    expect(body.result).toEqual({
      tree: {
        namespace: [],
        status: "completed",
        graph_name: "agent",
        children: [
          {
            namespace: ["researcher:t1"],
            status: "completed",
            graph_name: "researcher",
            children: [{ namespace: ["researcher:t1", "reader:t2"], status: "completed", graph_name: "reader" }],
          },
        ],
      },
    });
  });

  it("input.respond resumes the interrupted thread with {interrupt_id: response}; refuses a bad one, a thread without a run and one not interrupted", async () => {
    const tid = threadId();
    expect(await command(tid, { id: 1, method: "input.respond", params: { response: true } })).toMatchObject({ error: "invalid_argument", message: "input.respond requires an interrupt_id." });
    expect(await command(tid, { id: 1, method: "input.respond", params: { responses: [{ response: 1 }] } })).toMatchObject({ error: "invalid_argument", message: "input.respond responses entries require an interrupt_id." });
    expect(await command(tid, { id: 1, method: "input.respond", params: { interrupt_id: "int-1", response: "yes" } })).toMatchObject({ error: "no_such_run", message: "Thread has no active assistant; call run.start first." });

    const first = await runStart(tid, "please approve");
    await settled(tid, first);
    expect((await request(mock.url).get(`/threads/${tid}`).expect(200)).body.status).toBe("interrupted");
    const resumed = await command(tid, { id: 5, method: "input.respond", params: { namespace: [], interrupt_id: "int-1", response: "yes" } });
    expect(resumed).toMatchObject({ type: "success", id: 5, result: {}, meta: { thread_id: tid } });
    const runs = (await request(mock.url).get(`/threads/${tid}/runs`).expect(200)).body as { run_id: string; kwargs: { command: unknown } }[];
    expect(runs).toHaveLength(2);
    const resume = runs.find((r) => r.kwargs.command !== null);
    expect(resume?.kwargs).toMatchObject({ input: null, command: { resume: { "int-1": "yes" } } });
    await settled(tid, resume!.run_id);
    // The review node's update is reduced into the state (a last-value channel).
    expect((await request(mock.url).get(`/threads/${tid}`).expect(200)).body).toMatchObject({ status: "idle", values: { messages: [human], decision: "approved" } });
    expect(await command(tid, { id: 6, method: "input.respond", params: { interrupt_id: "int-1", response: "again" } })).toMatchObject({
      error: "invalid_argument",
      message: "input.respond can only be used while the run is interrupted.",
    });
  });

  it("run.start on an interrupted thread resumes it with the input as the resume value (the protocol's run state machine)", async () => {
    const tid = threadId();
    await settled(tid, await runStart(tid, "please approve"));
    const second = await runStart(tid, "approved");
    const run = (await request(mock.url).get(`/threads/${tid}/runs/${second}`).expect(200)).body;
    expect(run.kwargs).toMatchObject({ input: null, command: { resume: input("approved") } });
  });
});

describe("POST /threads/{thread_id}/stream/events", () => {
  it("writes every event as the document frames it: id (the seq), event (the method), data (the ProtocolEvent), CRLF; live and monotonic", async () => {
    const tid = threadId();
    const stream = await openEvents(tid, { channels: ["values", "updates", "lifecycle"] });
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const t0 = mock.control.clock.now().getTime();
    const runId = await runStart(tid, "hi tiny");
    await stream.until('"method":"values"');
    mock.control.clock.advance("1s");
    await stream.until('"event":"completed"');
    await settled(tid, runId);
    expect(stream.text()).toBe(
      frame(1, "lifecycle", { namespace: [], timestamp: t0, data: { event: "running", graph_name: "agent" } }) +
        frame(2, "values", { namespace: [], timestamp: t0, data: { messages: [{ type: "human", content: "hi tiny", id: "h1", example: false }] } }) +
        // Events 3–8 (not in these channels) are the agent node's task starting (derived `tasks`) and the
        // message it writes (derived messages-tuple); 10 is its task result.
        frame(9, "updates", { namespace: [], timestamp: t0 + 1000, node: "agent", data: { messages: [{ type: "ai", content: "Hello", id: "a1", example: false }] } }) +
        frame(11, "lifecycle", { namespace: [], timestamp: t0 + 1000, data: { event: "completed", graph_name: "agent" } }),
    );
    await stream.close();
  });

  it("converts each channel as the JS server does: messages lifecycle, tools, subgraph lifecycle, named and bare custom, tasks", async () => {
    const tid = threadId();
    const runId = await runStart(tid, "rich");
    await settled(tid, runId);
    // Opened after the run: the buffer replays everything (no stream was open while it played).
    const stream = await openEvents(tid, { channels: ["messages", "tools", "lifecycle", "custom", "tasks", "updates", "values"] });
    await stream.until('"seq":21,');
    await stream.close();
    const events = stream.events();
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    const data = events.map((e) => (e.json as { method: string; params: { namespace: string[]; node?: string; data: unknown } }));
    const messages = data.filter((e) => e.method === "messages");
    expect(messages.map((e) => [e.params.node, e.params.data])).toEqual([
      ["agent", { event: "message-start", role: "ai", id: "m1", metadata: { provider: "openai", model: "gpt-4o-mini" } }],
      ["agent", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }],
      ["agent", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "Hel" } }],
      ["agent", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "lo" } }],
      ["agent", { event: "content-block-finish", index: 0, content: { type: "text", text: "Hello" } }],
      ["agent", { event: "message-finish", usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } }],
    ]);
    expect(data.filter((e) => e.method === "tools").map((e) => e.params.data)).toEqual([
      { event: "tool-started", tool_call_id: "call-1", tool_name: "search", input: { q: "x" } },
      { event: "tool-finished", tool_call_id: "call-1", output: "found" },
    ]);
    expect(data.filter((e) => e.method === "lifecycle").map((e) => [e.params.namespace, e.params.data])).toEqual([
      [[], { event: "running", graph_name: "agent" }],
      [["researcher:t1"], { event: "started", graph_name: "researcher" }],
      [["researcher:t1", "reader:t2"], { event: "started", graph_name: "reader" }],
      [["researcher:t1", "reader:t2"], { event: "completed", graph_name: "reader" }],
      [["researcher:t1"], { event: "completed", graph_name: "researcher" }],
      [[], { event: "completed", graph_name: "agent" }],
    ]);
    expect(data.filter((e) => e.method === "custom").map((e) => e.params.data)).toEqual([{ name: "progress", payload: 50 }, { payload: { step: 1 } }]);
    expect(data.filter((e) => e.method === "tasks").map((e) => e.params.data)).toEqual([{ id: "task-1", name: "agent", input: {}, triggers: [] }]);
    expect(data.filter((e) => e.method === "updates").map((e) => [e.params.namespace, e.params.node, e.params.data])).toEqual([
      [[], "agent", { messages: [{ type: "ai", content: "Hello", id: "m1" }] }],
      [["researcher:t1"], "search", { hits: 2 }],
      [["researcher:t1", "reader:t2"], "read", { pages: 1 }],
    ]);
  });

  it("messages: streamed tool call chunks accumulate into a tool_call block; complete messages are sent whole, their tool calls as blocks", async () => {
    const tid = threadId();
    await settled(tid, await runStart(tid, "call a tool"));
    const stream = await openEvents(tid, { channels: ["messages"] });
    await stream.until("\r\n\r\n");
    await waitFor(() => stream.text().split("\r\n\r\n").length > 18);
    await stream.close();
    const seen = stream.events().map((e) => (e.json as { params: { node: string; data: unknown } }).params);
    expect(seen.map((p) => [p.node, p.data])).toEqual([
      ["agent", { event: "message-start", role: "ai", id: "c1" }],
      ["agent", { event: "content-block-start", index: 1, content: { type: "tool_call_chunk", id: "call-1", name: "search", args: "" } }],
      ["agent", { event: "content-block-delta", index: 1, delta: { type: "tool-call-delta", args: '{"q":' } }],
      ["agent", { event: "content-block-delta", index: 1, delta: { type: "tool-call-delta", args: ' "x"}' } }],
      ["agent", { event: "content-block-finish", index: 1, content: { type: "tool_call", id: "call-1", name: "search", args: { q: "x" } } }],
      ["agent", { event: "message-finish" }],
      ["tools", { event: "message-start", role: "tool", id: "t1", tool_call_id: "call-1" }],
      ["tools", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }],
      ["tools", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "found" } }],
      ["tools", { event: "content-block-finish", index: 0, content: { type: "text", text: "found" } }],
      ["tools", { event: "message-finish" }],
      ["agent", { event: "message-start", role: "ai", id: "c2" }],
      ["agent", { event: "content-block-start", index: 0, content: { type: "text", text: "" } }],
      ["agent", { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: "Again" } }],
      ["agent", { event: "content-block-finish", index: 0, content: { type: "text", text: "Again" } }],
      ["agent", { event: "content-block-start", index: 1, content: { type: "tool_call_chunk", id: "call-2", name: "search", args: "" } }],
      ["agent", { event: "content-block-finish", index: 1, content: { type: "tool_call", id: "call-2", name: "search", args: { q: "y" } } }],
      ["agent", { event: "message-finish" }],
    ]);
  });

  it("filters by channel (bare custom takes named ones, custom:<name> only its own), namespace prefix (a bare segment matches its task ids) and depth", async () => {
    const tid = threadId();
    await settled(tid, await runStart(tid, "rich"));
    type Seen = { method: string; params: { namespace: string[]; data: Record<string, unknown> } };
    /** Opens a stream and reads the replay of the finished run: `count` frames (the run has nothing more to come). */
    const read = async (body: Record<string, unknown>, count: number) => {
      const stream = await openEvents(tid, body);
      await stream.until("\r\n\r\n");
      await waitFor(() => stream.text().split("\r\n\r\n").length > count);
      await stream.close();
      return stream.events().map((e) => e.json as Seen);
    };
    expect((await read({ channels: ["custom:progress"] }, 1)).map((e) => e.params.data)).toEqual([{ name: "progress", payload: 50 }]);
    expect((await read({ channels: ["custom"] }, 2)).map((e) => e.params.data)).toEqual([{ name: "progress", payload: 50 }, { payload: { step: 1 } }]);
    expect((await read({ channels: ["updates"], namespaces: [["researcher"]] }, 2)).map((e) => e.params.namespace)).toEqual([["researcher:t1"], ["researcher:t1", "reader:t2"]]);
    expect((await read({ channels: ["updates"], namespaces: [["researcher"]], depth: 0 }, 1)).map((e) => e.params.namespace)).toEqual([["researcher:t1"]]);
    expect((await read({ channels: ["updates"], namespaces: [[]], depth: 0 }, 1)).map((e) => e.params.namespace)).toEqual([[]]);
    // Nothing matches a full segment that is not there: the stream stays empty while another one, opened after it, got its replay.
    const none = await openEvents(tid, { channels: ["updates"], namespaces: [["researcher:t9"]] });
    expect(await read({ channels: ["tasks"] }, 1)).toHaveLength(1);
    await none.close();
    expect(none.text()).toBe("");
  });

  it("replays buffered events after `since` or Last-Event-ID (the higher wins), then goes live", async () => {
    const tid = threadId();
    const runId = await runStart(tid, "hi tiny");
    await waitFor(() => (protocolSessions(contextOf(mock.control)).get(tid)?.seq ?? 0) >= 2);
    const ids = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const stream = await openEvents(tid, body, headers);
      await stream.until("\r\n\r\n");
      await new Promise((r) => setImmediate(r));
      await stream.close();
      return stream.events().map((e) => e.id);
    };
    const all = { channels: ["values", "updates", "lifecycle"] };
    expect(await ids(all)).toEqual(["1", "2"]);
    expect(await ids({ ...all, since: 1 })).toEqual(["2"]);
    expect(await ids({ ...all, since: 0 }, { "Last-Event-ID": "1" })).toEqual(["2"]);
    expect(await ids({ ...all, since: 0 }, { "Last-Event-ID": "not-a-seq" })).toEqual(["1", "2"]);

    // Reconnect after seq 2: nothing is replayed, the rest comes live.
    const resumed = await openEvents(tid, { ...all, since: 1 }, { "Last-Event-ID": "2" });
    mock.control.clock.advance("1s");
    await resumed.until('"event":"completed"');
    await settled(tid, runId);
    await resumed.close();
    expect(resumed.events().map((e) => [e.id, e.event])).toEqual([
      // 3–8: the agent's task starting and its message (derived tasks and messages-tuple, other channels); 10 its task result.
      ["9", "updates"],
      ["11", "lifecycle"],
    ]);
  });

  it("input and lifecycle of an interrupt and a resume; a failed run ends `failed` with its error", async () => {
    const tid = threadId();
    const stream = await openEvents(tid, { channels: ["input", "lifecycle"] });
    await settled(tid, await runStart(tid, "please approve"));
    await stream.until('"event":"interrupted"');
    await command(tid, { id: 2, method: "input.respond", params: { interrupt_id: "int-1", response: "yes" } });
    await stream.until('"event":"completed"');
    await stream.close();
    expect(stream.events().map((e) => [e.event, (e.json as { params: { data: unknown } }).params.data])).toEqual([
      ["lifecycle", { event: "running", graph_name: "agent" }],
      // The interrupt comes in updates and values; one input.requested per interrupt id.
      ["input.requested", { interrupt_id: "int-1", payload: { question: "Send?" } }],
      ["lifecycle", { event: "interrupted", graph_name: "agent" }],
      ["lifecycle", { event: "running", graph_name: "agent" }],
      ["lifecycle", { event: "completed", graph_name: "agent" }],
    ]);

    const other = threadId();
    await settled(other, await runStart(other, "fail please"));
    const failed = await openEvents(other, { channels: ["lifecycle"] });
    await failed.until('"event":"failed"');
    await failed.close();
    expect(failed.events().map((e) => (e.json as { params: { data: unknown } }).params.data)).toEqual([
      { event: "running", graph_name: "agent" },
      { event: "failed", graph_name: "agent", error: "boom" },
    ]);
  });

  it("an invalid filter is a 400 {detail}; a stream on a thread with no run stays open and idle; closing it detaches it", async () => {
    const tid = threadId();
    for (const body of [{}, { channels: [] }, { channels: ["debug"] }, { channels: ["values"], depth: -1 }, { channels: ["values"], namespaces: ["x"] }]) {
      const res = await request(mock.url).post(`/threads/${tid}/stream/events`).send(body).expect(400);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
    const notJson = await request(mock.url).post(`/threads/${tid}/stream/events`).set("content-type", "application/json").send("{").expect(400);
    expect(notJson.body.detail).toMatch(/^Invalid JSON body/);

    const stream = await openEvents(tid, { channels: ["values"] });
    expect(stream.res.status).toBe(200);
    const session = protocolSessions(contextOf(mock.control)).get(tid) as ProtocolSession;
    expect(session.sinkCount).toBe(1);
    expect(stream.text()).toBe("");
    await stream.close();
    await waitFor(() => session.sinkCount === 0);
  });
});

describe("ProtocolSession", () => {
  it("keeps a bounded buffer: the oldest events are dropped first", () => {
    let now = 0;
    const session = new ProtocolSession(() => now++);
    for (let i = 0; i < 1005; i++) session.push("values", [], { i });
    const seen: number[] = [];
    const detach = session.attach({ channels: new Set(["values"]) }, undefined, (e) => seen.push(e.seq as number));
    expect(seen).toHaveLength(1000);
    expect(seen[0]).toBe(6);
    detach();
    expect(session.sinkCount).toBe(0);
  });
});
