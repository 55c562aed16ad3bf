import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer, type ScenarioInput } from "../../src/index.js";
import { rawText, sseEvents } from "../support/sse.js";

/**
 * The `checkpoints`, `tasks`, `debug` and `events` modes derived from a turn's steps, their task ids
 * shared with the thread's state and history, and AI messages streamed in token chunks
 * (docs/scenarios.md "Derived stream modes"), through SDK 2.x and on the wire.
 */

type Json = Record<string, any>;

const weather: ScenarioInput = {
  name: "ck-weather",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "weather" } }] } },
  steps: [
    { node: "agent", update: { messages: [{ type: "ai", id: "ai-1", content: "", tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" }] }] } },
    { node: "tools", update: { messages: [{ type: "tool", id: "t-1", content: "Sunny", tool_call_id: "call_1" }] } },
    { node: "agent", update: { messages: [{ type: "ai", id: "ai-2", content: "It's sunny in Paris." }] }, chunks: 4 },
  ],
};

const approval: ScenarioInput = {
  name: "ck-approval",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "approve" } }] } },
  turns: [{ steps: [{ node: "draft", update: { draft: "report" } }], end: { interrupt: { value: "Send?", id: "int-1", node: "review" } } }, { steps: [{ node: "review", update: { sent: true } }] }],
};

/** A node that raises after a step: `end: {error}` naming the node. */
const failing: ScenarioInput = {
  name: "ck-failing",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "fail" } }] } },
  steps: [{ node: "agent", update: { messages: [{ type: "ai", id: "ai-f", content: "", tool_calls: [{ name: "lookup", args: {}, id: "call_f", type: "tool_call" }] }] } }],
  end: { error: { error: "ValueError", message: "can't reach the lookup service", node: "tools" } },
};

/** A turn that scripts `checkpoints`: sent as written, and nothing derived for that mode. */
const scripted: ScenarioInput = {
  name: "ck-scripted",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "scripted" } }] } },
  events: [
    { event: "updates", data: { agent: { messages: [{ type: "ai", id: "s-1", content: "ok" }] } } },
    { event: "checkpoints", data: { scripted: true } },
  ],
};

const user = (content: string) => ({ messages: [{ role: "user", content }] });

describe("derived checkpoints, tasks, debug and events modes", () => {
  let mock: MockServer;
  let client: Client;

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 11, scenarios: [weather, approval, failing, scripted] });
    client = new Client({ apiUrl: mock.url });
  });
  afterAll(async () => {
    await mock?.close();
  });

  const stream = async (threadId: string, body: Json) => {
    const res = await request(mock.url).post(`/threads/${threadId}/runs/stream`).send(body).buffer(true).parse(rawText).expect(200);
    return sseEvents(res.body as string);
  };

  it("checkpoints and tasks name the checkpoints and task ids getHistory shows; messages-tuple's checkpoint_ns names the same task (SDK 2.x)", async () => {
    const thread = await client.threads.create();
    const parts: { event: string; data: any }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "agent", { input: user("weather?"), streamMode: ["checkpoints", "tasks", "messages-tuple"] })) parts.push(part);
    const names = parts.map((p) => p.event);
    // LangGraph's loop: each checkpoint announced with its tasks, then each task starts, its messages, its result.
    const step = (messages: number) => ["checkpoints", "tasks", ...Array(messages).fill("messages"), "tasks"];
    expect(names).toEqual(["metadata", "checkpoints", ...step(1), ...step(1), ...step(4), "checkpoints"]);

    const history = await client.threads.getHistory(thread.thread_id);
    const oldestFirst = [...history].reverse();
    const checkpoints = parts.filter((p) => p.event === "checkpoints").map((p) => p.data);
    expect(checkpoints.map((c) => c.config.configurable.checkpoint_id)).toEqual(oldestFirst.map((h) => h.checkpoint.checkpoint_id));
    expect(checkpoints.map((c) => c.parent_config?.configurable.checkpoint_id ?? null)).toEqual(oldestFirst.map((h) => h.parent_checkpoint?.checkpoint_id ?? null));
    expect(checkpoints.map((c) => c.next)).toEqual(oldestFirst.map((h) => h.next));
    expect(checkpoints.map((c) => c.metadata)).toEqual(oldestFirst.map((h) => h.metadata));
    expect(checkpoints.map((c) => c.values)).toEqual(oldestFirst.map((h) => h.values));
    expect(checkpoints.map((c) => c.tasks.map((t: Json) => t.id))).toEqual(oldestFirst.map((h) => h.tasks.map((t) => t.id)));
    expect(checkpoints[0]).toMatchObject({ metadata: { source: "input", step: -1 }, next: ["__start__"], tasks: [{ name: "__start__", interrupts: [], state: null }] });
    expect(Object.keys(checkpoints[1]!)).toEqual(["config", "parent_config", "values", "metadata", "next", "tasks"]);

    // `__start__` is hidden: the first task event is the agent's, a task of the checkpoint after the start.
    const tasks = parts.filter((p) => p.event === "tasks").map((p) => p.data);
    const agentTask = oldestFirst[1]!.tasks[0]!;
    expect(tasks[0]).toEqual({ id: agentTask.id, name: "agent", input: oldestFirst[1]!.values, triggers: ["branch:to:agent"], metadata: expect.objectContaining({ graph_id: "agent", run_attempt: 1 }) });
    expect(tasks[0].metadata).not.toHaveProperty("thread_id");
    expect(tasks[1]).toEqual({ id: agentTask.id, name: "agent", error: null, result: { messages: [expect.objectContaining({ id: "ai-1" })] }, interrupts: [] });
    // The result is what getHistory shows for that task once it ran.
    expect(agentTask.result).toEqual(tasks[1].result);

    const tuples = parts.filter((p) => p.event === "messages").map((p) => p.data as [Json, Json]);
    expect(tuples[0]![1]).toMatchObject({ langgraph_node: "agent", langgraph_checkpoint_ns: `agent:${agentTask.id}`, checkpoint_ns: `agent:${agentTask.id}` });
    expect(tuples[1]![1].langgraph_checkpoint_ns).toBe(`tools:${oldestFirst[2]!.tasks[0]!.id}`);
  });

  it("a step with `chunks` streams its AI message as AIMessageChunk pieces sharing id and metadata, whose contents join to the message", async () => {
    const thread = await client.threads.create();
    const events = await stream(thread.thread_id, { assistant_id: "agent", input: user("weather?"), stream_mode: ["messages-tuple", "messages"] });
    const chunks = events.filter((e) => e.event === "messages" && (e.data as [Json])[0].id === "ai-2").map((e) => e.data as [Json, Json]);
    expect(chunks).toHaveLength(4);
    expect(chunks.map(([c]) => c.content).join("")).toBe("It's sunny in Paris.");
    expect(chunks.every(([c]) => c.type === "AIMessageChunk" && c.id === "ai-2")).toBe(true);
    expect(new Set(chunks.map(([, m]) => JSON.stringify(m))).size).toBe(1);
    // The legacy mode: metadata once, then the message so far.
    const partial = events.filter((e) => e.event === "messages/partial").map((e) => (e.data as Json[])[0]!.content);
    expect(partial).toEqual(["It's ", "It's sunny", "It's sunny in P", "It's sunny in Paris."]);
    // The state holds the whole message, stored as an AI message.
    const state = await client.threads.getState<{ messages: Json[] }>(thread.thread_id);
    expect(state.values.messages.at(-1)).toMatchObject({ type: "ai", id: "ai-2", content: "It's sunny in Paris." });
  });

  it("debug wraps checkpoints and tasks with step, timestamp and type, its checkpoint payload naming checkpoint and parent_checkpoint", async () => {
    const thread = await client.threads.create();
    const events = await stream(thread.thread_id, { assistant_id: "agent", input: user("weather?"), stream_mode: ["debug"] });
    const debug = events.filter((e) => e.event === "debug").map((e) => e.data as Json);
    expect(debug.map((d) => `${d.type}@${d.step}`)).toEqual([
      "checkpoint@-1",
      "checkpoint@0",
      "task@1",
      "task_result@1",
      "checkpoint@1",
      "task@2",
      "task_result@2",
      "checkpoint@2",
      "task@3",
      "task_result@3",
      "checkpoint@3",
    ]);
    expect(debug[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const [first, second] = debug as [Json, Json];
    expect(first.payload).toMatchObject({ parent_config: null, checkpoint: { checkpoint_id: first.payload.config.configurable.checkpoint_id, thread_id: thread.thread_id, checkpoint_ns: "" }, parent_checkpoint: null });
    expect(second.payload.parent_checkpoint).toEqual(first.payload.checkpoint);
    const state = await client.threads.getState(thread.thread_id);
    expect(debug.at(-1)!.payload.checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
  });

  it("an interrupt: the interrupted node's task starts and its result holds the interrupt; the thread's interrupts and state name that task", async () => {
    const thread = await client.threads.create();
    const events = await stream(thread.thread_id, { assistant_id: "agent", input: user("approve it"), stream_mode: ["tasks", "updates"] });
    expect(events.map((e) => e.event)).toEqual(["metadata", "tasks", "updates", "tasks", "tasks", "updates", "tasks"]);
    const [start, result] = events.filter((e) => (e.data as Json).name === "review").map((e) => e.data as Json);
    expect(result).toEqual({ id: start!.id, name: "review", error: null, result: {}, interrupts: [{ value: "Send?", id: "int-1" }] });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.tasks.map((t) => t.id)).toEqual([start!.id]);
    const got = (await request(mock.url).get(`/threads/${thread.thread_id}`).expect(200)).body as Json;
    expect(Object.keys(got.interrupts)).toEqual([start!.id]);
    // The resume runs that same task: its messages and task events name it.
    const resumed = await stream(thread.thread_id, { assistant_id: "agent", command: { resume: "yes" }, stream_mode: ["tasks"] });
    expect((resumed[1]!.data as Json).id).toBe(start!.id);
  });

  it("an error ending: the last checkpoint is announced with the failing node as its task, the task starts and its result carries the error, then `error`; the saved checkpoint holds the error (LangGraph's loop)", async () => {
    const thread = await client.threads.create();
    const events = await stream(thread.thread_id, { assistant_id: "agent", input: user("fail please"), stream_mode: ["checkpoints", "tasks", "debug", "updates"] });
    const error = { error: "ValueError", message: "can't reach the lookup service" };
    // After the agent's step: its checkpoint (next: tools), the tools task starting, its result with
    // the exception and no `updates` for it (LangGraph outputs no update for an error write), then `error`.
    expect(events.map((e) => e.event)).toEqual([
      "metadata",
      ...["checkpoints", "debug"],
      ...["checkpoints", "debug", "tasks", "debug", "updates", "tasks", "debug"],
      ...["checkpoints", "debug", "tasks", "debug", "tasks", "debug"],
      "error",
    ]);
    const [checkpoint, debugCheckpoint, start, , result, debugResult, end] = events.slice(-7) as { event: string; data: Json }[];
    expect(end).toEqual({ event: "error", data: error, id: null });
    expect(checkpoint!.data).toMatchObject({ next: ["tools"], tasks: [{ name: "tools", interrupts: [], state: null }], metadata: { source: "loop", step: 1, writes: { agent: expect.anything() } } });
    const taskId = checkpoint!.data.tasks[0].id;
    expect(start!.data).toMatchObject({ id: taskId, name: "tools", triggers: ["branch:to:tools"] });
    expect(result!.data).toEqual({ id: taskId, name: "tools", error, result: {}, interrupts: [] });
    expect(debugCheckpoint!.data).toMatchObject({ step: 1, type: "checkpoint", payload: { next: ["tools"] } });
    expect(debugResult!.data).toMatchObject({ step: 2, type: "task_result", payload: result!.data });
    expect(events.filter((e) => e.event === "updates").map((e) => Object.keys(e.data as Json))).toEqual([["agent"]]);

    // The thread's state is that checkpoint, its task holding the error as the checkpointer saves it (repr).
    const state = (await request(mock.url).get(`/threads/${thread.thread_id}/state`).expect(200)).body as Json;
    expect(state.checkpoint.checkpoint_id).toBe(checkpoint!.data.config.configurable.checkpoint_id);
    expect(state.next).toEqual(["tools"]);
    expect(state.tasks).toEqual([{ id: taskId, name: "tools", path: ["__pregel_pull", "tools"], error: 'ValueError("can\'t reach the lookup service")', interrupts: [], checkpoint: null, state: null, result: null }]);
    const history = await client.threads.getHistory(thread.thread_id);
    const announced = events.filter((e) => e.event === "checkpoints").map((e) => (e.data as Json).config.configurable.checkpoint_id);
    expect([...history].reverse().map((h) => h.checkpoint.checkpoint_id)).toEqual(announced);
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");
  });

  it("events: the graph's on_chain_start, each node's start, stream and end, the graph's end, in the astream_events v2 shape", async () => {
    const thread = await client.threads.create();
    const events = await stream(thread.thread_id, { assistant_id: "agent", input: user("weather?"), stream_mode: ["events"] });
    const chain = events.filter((e) => e.event === "events").map((e) => e.data as Json);
    expect(chain.map((e) => `${e.event}:${e.name}`)).toEqual([
      "on_chain_start:LangGraph",
      ...["agent", "tools", "agent"].flatMap((n) => [`on_chain_start:${n}`, `on_chain_stream:${n}`, `on_chain_end:${n}`]),
      "on_chain_end:LangGraph",
    ]);
    const metadata = events[0]!.data as Json;
    const [graph, node] = chain as [Json, Json];
    expect(Object.keys(graph)).toEqual(["event", "data", "name", "tags", "run_id", "metadata", "parent_ids"]);
    expect(graph).toMatchObject({ data: { input: user("weather?") }, tags: [], run_id: metadata.run_id, parent_ids: [] });
    expect(node).toMatchObject({ tags: ["graph:step:1"], parent_ids: [metadata.run_id], metadata: { langgraph_node: "agent", langgraph_step: 1 } });
    expect(chain[2]!.data.chunk).toEqual({ messages: [expect.objectContaining({ id: "ai-1" })] });
    expect(chain.at(-1)!.data.output).toEqual((await client.threads.getState(thread.thread_id)).values);
  });

  it("a mode the turn scripts is sent as scripted, and not derived", async () => {
    const thread = await client.threads.create();
    const events = await stream(thread.thread_id, { assistant_id: "agent", input: user("scripted"), stream_mode: ["checkpoints", "tasks"] });
    expect(events.filter((e) => e.event === "checkpoints").map((e) => e.data)).toEqual([{ scripted: true }]);
    // The other mode is still derived from the scripted update.
    expect(events.filter((e) => e.event === "tasks").map((e) => (e.data as Json).name)).toEqual(["agent", "agent"]);
  });
});
