import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { Role, TaskState, type Message, type StreamResponse, type Task } from "@a2a-js/sdk";
import { type Client as A2aClient, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import { defaultAssistantId } from "../../src/agent-server/assistants.js";

const AGENT = defaultAssistantId("agent");

/** The official client, speaking A2A 0.3 (the real server's version) through its compat layer. */
async function a2aClient(url: string): Promise<A2aClient> {
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
    }),
  );
  return factory.createFromUrl(url, `/.well-known/agent-card.json?assistant_id=${AGENT}`);
}

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `m-${text.length}`, contextId: "", taskId: "", role: Role.ROLE_USER, parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }], metadata: undefined, extensions: [], referenceTaskIds: [], ...extra };
}

const send = (text: string, extra: Partial<Message> = {}) => ({ tenant: "", message: userMessage(text, extra), configuration: undefined, metadata: undefined });

function textOf(task: Task): string[] {
  return task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")));
}

describe("A2A: POST /a2a/{assistant_id} with @a2a-js/sdk", () => {
  let mock: MockServer;
  let client: A2aClient;

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 7, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
    client = await a2aClient(mock.url);
  });
  afterAll(async () => {
    await mock.close();
  });
  beforeEach(() => mock.reset());

  it("serves the assistant's agent card, pointing at its A2A endpoint", async () => {
    const res = await request(mock.url).get(`/.well-known/agent-card.json?assistant_id=${AGENT}`).expect(200);
    expect(res.body).toMatchObject({ protocolVersion: "0.3.0", name: "agent", url: `${mock.url}/a2a/${AGENT}`, preferredTransport: "JSONRPC", capabilities: { streaming: true } });
    await request(mock.url).get(`/.well-known/agent-card.json?assistant_id=00000000-0000-4000-8000-000000000000`).expect(404);
  });

  it("message/send runs the matching scenario on a new context and returns the completed task", async () => {
    const result = await client.sendMessage(send("hello there"));
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task)).toEqual(["You said: hello there"]);
    const runs = mock.control.runs();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ run_id: task.id, thread_id: task.contextId, scenario: "echo", route: `POST /a2a/${AGENT}`, status: "success" });
    // The context is a thread the agent server API sees.
    const thread = await request(mock.url).get(`/threads/${task.contextId}`).expect(200);
    expect(thread.body.status).toBe("idle");
  });

  it("tasks/get reads the task back with its history; the client's getTask, which sends no contextId, is refused as the real server refuses it", async () => {
    const task = (await client.sendMessage(send("hello there"))) as Task;
    // A2A 1.0 dropped contextId from tasks/get; the real server requires it (its documented error).
    await expect(client.getTask({ tenant: "", id: task.id, historyLength: 10 })).rejects.toThrow("Invalid request: Missing required parameter: contextId");
    const res = await request(mock.url)
      .post(`/a2a/${AGENT}`)
      .set("Accept", "application/json")
      .send({ jsonrpc: "2.0", id: "g", method: "tasks/get", params: { id: task.id, contextId: task.contextId, historyLength: 2 } })
      .expect(200);
    expect(res.body.result).toMatchObject({ kind: "task", id: task.id, contextId: task.contextId, status: { state: "completed" }, artifacts: [{ parts: [{ kind: "text", text: "You said: hello there" }] }] });
    expect(res.body.result.history.map((m: { role: string; parts: { text: string }[] }) => [m.role, m.parts[0]!.text])).toEqual([
      ["user", "hello there"],
      ["agent", "You said: hello there"],
    ]);
  });

  it("message/stream streams the task as JSON-RPC SSE events and ends with a final status", async () => {
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(send("hello there"))) events.push(e);
    expect(events.map((e) => e.payload?.$case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const last = events.at(-1)!.payload as { $case: "statusUpdate"; value: { status: { state: TaskState } } };
    expect(last.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const art = events[2]!.payload as { $case: "artifactUpdate"; value: { artifact: { parts: { content: { value: string } }[] } } };
    expect(art.value.artifact.parts[0]!.content.value).toBe("You said: hello there");
  });

  it("an interrupt leaves the task input-required; a reply with the task id resumes it", async () => {
    const first = (await client.sendMessage(send("Email the quarterly report to the team"))) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const second = (await client.sendMessage(send("approve", { contextId: first.contextId, taskId: first.id }))) as Task;
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(second.contextId).toBe(first.contextId);
    expect(textOf(second)).toEqual(["Done: the quarterly report email was sent."]);
    expect(mock.control.runs().map((r) => [r.scenario, r.turn])).toEqual([
      ["human-approval", 1],
      ["human-approval", 2],
    ]);
  });
});

describe("A2A: the wire", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 7, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
  });
  afterAll(async () => {
    await mock.close();
  });
  beforeEach(() => mock.reset());
  const post = (body: unknown, accept = "application/json") => request(mock.url).post(`/a2a/${AGENT}`).set("Accept", accept).send(body as object);
  const message = (text: string) => ({ role: "user", messageId: "m1", parts: [{ kind: "text", text }] });

  it("message/send answers a JSON-RPC result with the task (v0.3 shape)", async () => {
    const res = await post({ jsonrpc: "2.0", id: "1", method: "message/send", params: { message: message("hello there") } }).expect(200);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: "1", result: { kind: "task", status: { state: "completed" }, artifacts: [{ name: "Assistant Response", parts: [{ kind: "text", text: "You said: hello there" }] }] } });
  });

  it("message/stream writes data-only SSE events, each a JSON-RPC response with the request id", async () => {
    const res = await post({ jsonrpc: "2.0", id: 2, method: "message/stream", params: { message: message("hello there") } }, "text/event-stream").expect(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    const events = res.text.split("\n\n").filter((e) => e.startsWith("data: ")).map((e) => JSON.parse(e.slice(6)));
    expect(events.map((e) => [e.id, e.result.kind, e.result.status?.state, e.result.final])).toEqual([
      [2, "task", "submitted", undefined],
      [2, "status-update", "working", false],
      [2, "artifact-update", undefined, undefined],
      [2, "status-update", "completed", true],
    ]);
  });

  it("answers JSON-RPC errors: bad envelope and Accept with 400, bad params and unknown tasks with 200", async () => {
    expect((await post({ jsonrpc: "1.0", id: "1", method: "message/send" }).expect(400)).body.error.code).toBe(-32600);
    expect((await post({ jsonrpc: "2.0", id: "1", method: "tasks/list" }).expect(400)).body.error.code).toBe(-32601);
    expect((await post({ jsonrpc: "2.0", id: "1", method: "message/stream", params: { message: message("x") } }).expect(400)).body.error.message).toMatch(/text\/event-stream/);
    const missing = await post({ jsonrpc: "2.0", id: "1", method: "tasks/get", params: { id: AGENT } }).expect(200);
    expect(missing.body).toEqual({ jsonrpc: "2.0", id: "1", error: { code: -32602, message: "Invalid request: Missing required parameter: contextId" } });
    const unknown = await post({ jsonrpc: "2.0", id: "1", method: "tasks/get", params: { id: AGENT, contextId: AGENT } }).expect(200);
    expect(unknown.body.error.code).toBe(-32001);
    const cancel = await post({ jsonrpc: "2.0", id: "1", method: "tasks/cancel", params: { id: AGENT, contextId: AGENT } }).expect(200);
    expect(cancel.body.error.code).toBe(-32004);
    const file = await post({ jsonrpc: "2.0", id: "1", method: "message/send", params: { message: { ...message("x"), parts: [{ kind: "file", file: { uri: "x" } }] } } }).expect(200);
    expect(file.body.error).toMatchObject({ code: -32602 });
  });

  it("an unknown assistant is 404", async () => {
    await post({ jsonrpc: "2.0", id: "1", method: "message/send", params: { message: message("x") } });
    const res = await request(mock.url).post("/a2a/00000000-0000-4000-8000-000000000000").set("Accept", "application/json").send({ jsonrpc: "2.0", id: "1", method: "message/send", params: { message: message("x") } });
    expect(res.status).toBe(404);
  });
});
