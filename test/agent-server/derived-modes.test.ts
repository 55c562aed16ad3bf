import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer, type ScenarioInput } from "../../src/index.js";
import { sseEvents } from "../support/sse.js";

/**
 * The state model (docs/agent-server.md "State model"): node updates reduced into the thread's state
 * by the graph's channels, and every stream mode a turn does not script derived from its steps
 * (docs/scenarios.md "Steps" and "Derived stream modes"), seen through SDK 2.x and on the wire.
 */

type Message = { type: string; id: string; content: unknown; [key: string]: unknown };
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Only node updates, as most agents stream them (and as a recording of one holds them). */
const updatesOnly: ScenarioInput = {
  name: "updates-only",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "updates" } }] } },
  events: [{ event: "updates", data: { agent: { messages: [{ type: "ai", id: "u-1", content: "Reply to {{state.messages.-1.content}}" }], mood: "happy" } } }],
};

/** The short form: a tool call, its result and the answer in three steps. */
const weather: ScenarioInput = {
  name: "steps-weather",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "weather" } }] } },
  turns: [
    {
      steps: [
        { node: "agent", update: { messages: [{ type: "ai", id: "ai-1", content: "", tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" }] }] } },
        { node: "tools", update: { messages: [{ type: "tool", content: "Sunny, 22 °C", tool_call_id: "call_1", name: "get_weather" }] }, delay_ms: 100 },
        { node: "agent", update: { messages: [{ type: "ai", id: "ai-2", content: "The tool says: {{state.messages.-1.content}}", additional_kwargs: { reply_to: "{{state.messages.-1.id}}" } }], notes: ["looked up"] } },
      ],
    },
    // The second turn corrects the answer by id, removes the tool call's messages and adds a note.
    { steps: [{ node: "agent", update: { messages: [{ type: "ai", id: "ai-2", content: "Corrected" }, { type: "remove", id: "ai-1" }], notes: ["corrected"] } }] },
  ],
};

/** Each step's templates read what the steps before it wrote. */
const planned: ScenarioInput = {
  name: "planned",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "plan" } }] } },
  steps: [
    { node: "planner", update: { plan: { what: "book a table", when: "{{state.messages.-1.content}}" } } },
    { node: "agent", update: { answer: "Done: {{state.plan.what}} ({{state.plan.when}})", seen: "{{state.plan.where}}" } },
  ],
};

const approval: ScenarioInput = {
  name: "approval",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "approve" } }] } },
  turns: [
    { steps: [{ node: "draft", update: { draft: "report" } }], end: { interrupt: { value: "Send?", node: "review" } } },
    { steps: [{ node: "review", update: { sent: true } }] },
  ],
};

const badRemove: ScenarioInput = {
  name: "bad-remove",
  match: { assistant_id: "agent", input: { messages: [{ content: { $contains: "remove" } }] } },
  steps: [{ node: "agent", update: { messages: [{ type: "remove", id: "nope" }] } }],
};

/** `notes` is an `append` channel of this graph; `messages` add_messages; the rest last-value. */
const graphs = { graphs: [{ graph_id: "agent", channels: { messages: "add_messages", notes: "append" } }] };

const user = (content: string) => ({ messages: [{ role: "user", content }] });

describe("the state model and derived stream modes", () => {
  let mock: MockServer;
  let client: Client;

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 5, fixtures: [graphs], scenarios: [updatesOnly, weather, planned, approval, badRemove] });
    client = new Client({ apiUrl: mock.url });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("a turn of node updates only: derived values, the reduced state, messages naming their node, a second run appending, history per step (SDK 2.x)", async () => {
    const thread = await client.threads.create();
    const parts: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "agent", { input: user("updates please"), streamMode: ["values", "updates", "messages-tuple"] })) parts.push(part);
    expect(parts.map((p) => p.event)).toEqual(["metadata", "values", "messages", "updates", "values"]);
    const [, start, tuple, , after] = parts as { data: { messages: Message[]; mood?: string } }[];
    // The input kept, made a message with a seeded uuid4 id, as `__start__` applies it.
    const human = start!.data.messages[0]!;
    // `notes` is an append channel: it starts empty, as LangGraph's list channels do.
    expect(start!.data).toEqual({ messages: [{ content: "updates please", additional_kwargs: {}, response_metadata: {}, type: "human", name: null, id: human.id }], notes: [] });
    expect(human.id).toMatch(UUID4);
    const answer = { content: "Reply to updates please", additional_kwargs: {}, response_metadata: {}, type: "ai", name: null, id: "u-1", tool_calls: [], invalid_tool_calls: [], usage_metadata: null };
    expect(after!.data).toEqual({ messages: [human, answer], notes: [], mood: "happy" });
    const [message, metadata] = tuple!.data as unknown as [Message, Record<string, unknown>];
    expect(message).toEqual(answer);
    expect(metadata).toMatchObject({
      langgraph_step: 1,
      langgraph_node: "agent",
      langgraph_triggers: ["branch:to:agent"],
      langgraph_path: ["__pregel_pull", "agent"],
      langgraph_checkpoint_ns: expect.stringMatching(/^agent:[0-9a-f-]{36}$/),
      graph_id: "agent",
      thread_id: thread.thread_id,
    });

    // The second run: its input appended, the node's message with the same id replaced in place.
    await client.runs.wait(thread.thread_id, "agent", { input: user("updates again") });
    const values = (await client.threads.get(thread.thread_id)).values as { messages: Message[]; mood: string };
    expect(values.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "updates please"],
      ["ai", "Reply to updates again"],
      ["human", "updates again"],
    ]);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    expect(history.map((s) => [s.metadata?.source, s.metadata?.step, s.next, (s.values as { messages: Message[] }).messages.map((m) => m.content)])).toEqual([
      ["loop", 4, [], ["updates please", "Reply to updates again", "updates again"]],
      ["loop", 3, ["agent"], ["updates please", "Reply to updates please", "updates again"]],
      ["input", 2, ["__start__"], ["updates please", "Reply to updates please"]],
      ["loop", 1, [], ["updates please", "Reply to updates please"]],
      ["loop", 0, ["agent"], ["updates please"]],
      ["input", -1, ["__start__"], []],
    ]);
  });

  it("steps give every mode on the wire: values after the input and each step, updates per node, messages-tuple and legacy messages for each new message", async () => {
    const thread = await client.threads.create();
    const res = await request(mock.url)
      .post(`/threads/${thread.thread_id}/runs/stream`)
      .send({ assistant_id: "agent", input: user("weather in Paris?"), stream_mode: ["values", "updates", "messages-tuple", "messages"] })
      .buffer(true)
      .parse((r, done) => {
        let text = "";
        r.on("data", (c: Buffer) => (text += c.toString()));
        r.on("end", () => done(null, text));
      })
      .expect(200);
    const events = sseEvents(res.body as string);
    const step = (messageEvents: string[]) => [...messageEvents, "updates", "values"];
    const perMessage = ["messages", "messages/metadata", "messages/complete"];
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", ...step(perMessage), ...step(perMessage), ...step(perMessage)]);
    const data = events.map((e) => e.data) as unknown[];
    // The tool message got a seeded id; the answer step's templates read the state its node sees: the
    // input and both earlier steps reduced, the tool's result last, with the id the state holds.
    const toolMessage = (data[10] as Record<string, Message>).tools!.messages as unknown as Message[];
    expect(toolMessage[0]).toMatchObject({ type: "tool", tool_call_id: "call_1", status: "success", id: expect.stringMatching(UUID4) });
    expect(data[15]).toEqual({ agent: { messages: [expect.objectContaining({ id: "ai-2", content: "The tool says: Sunny, 22 °C", additional_kwargs: { reply_to: toolMessage[0]!.id } })], notes: ["looked up"] } });
    expect(data[16]).toMatchObject({ notes: ["looked up"], messages: [{ type: "human" }, { id: "ai-1" }, { type: "tool" }, { id: "ai-2" }] });
    const [tuple, tupleMeta] = data[12] as [Message, Record<string, unknown>];
    expect([tuple.id, tupleMeta.langgraph_node, tupleMeta.langgraph_step]).toEqual(["ai-2", "agent", 3]);
    expect(data[13]).toEqual({ "ai-2": { metadata: tupleMeta } });
    expect(data[14]).toEqual([tuple]);

    // Turn 2: replaced by id, removed, appended to the `append` channel.
    const final = (await client.runs.wait(thread.thread_id, "agent", { input: user("thanks") })) as { messages: Message[]; notes: string[] };
    expect(final.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "weather in Paris?"],
      ["tool", "Sunny, 22 °C"],
      ["ai", "Corrected"],
      ["human", "thanks"],
    ]);
    expect(final.notes).toEqual(["looked up", "corrected"]);
  });

  it("a step's templates see the state after the input and every earlier step; a path no earlier step wrote refuses the run (422, naming the step)", async () => {
    const thread = await client.threads.create();
    const refused = await request(mock.url).post(`/threads/${thread.thread_id}/runs/wait`).send({ assistant_id: "agent", input: user("plan dinner at 8") });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/^Scenario 'planned' cannot be played for this run: template \{\{state\.plan\.where\}\} at \/1\/update\/seen has no value in the thread's state \(\{"messages":.*"plan":\{"what":"book a table","when":"plan dinner at 8"\}\}\)$/);
    const off = mock.use({ ...planned, name: "planned-ok", steps: [planned.steps![0]!, { node: "agent", update: { answer: "Done: {{state.plan.what}} ({{state.plan.when}})" } }] });
    const done = (await request(mock.url).post(`/threads/${thread.thread_id}/runs/wait`).send({ assistant_id: "agent", input: user("plan dinner at 8") }).expect(200)).body;
    off();
    expect(done).toMatchObject({ plan: { what: "book a table", when: "plan dinner at 8" }, answer: "Done: book a table (plan dinner at 8)" });
  });

  it("a Command's update and a state update go through the same reducers", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "agent", { input: user("approve this") });
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["review"]);
    const resumed = await client.runs.wait(thread.thread_id, "agent", { command: { resume: "yes", update: { messages: [{ role: "user", content: "yes, send" }], approved: true } } });
    expect(resumed).toMatchObject({ draft: "report", approved: true, sent: true });
    expect((resumed as { messages: Message[] }).messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "approve this"],
      ["human", "yes, send"],
    ]);
    const id = (resumed as { messages: Message[] }).messages[0]!.id;
    await client.threads.updateState(thread.thread_id, { values: { messages: [{ type: "remove", id }], notes: ["n"] }, asNode: "review" });
    const state = await client.threads.getState(thread.thread_id);
    expect((state.values as { messages: Message[]; notes: string[] }).messages.map((m) => m.content)).toEqual(["yes, send"]);
    expect((state.values as { notes: string[] }).notes).toEqual(["n"]);
    expect(state.metadata).toMatchObject({ source: "update", writes: { review: { messages: [{ type: "remove", id }], notes: ["n"] } } });
    // Removing a message that is not there is LangGraph's ValueError: refused, not a 500.
    const refused = await request(mock.url).post(`/threads/${thread.thread_id}/state`).send({ values: { messages: [{ type: "remove", id: "nope" }] } });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ detail: "ValueError: Attempting to delete a message with an ID that doesn't exist ('nope')" });
  });

  it("a step the reducers refuse fails the run with LangGraph's error; the input stays in the state", async () => {
    const thread = await client.threads.create();
    // SDK 2.x throws the run's `__error__`.
    await expect(client.runs.wait(thread.thread_id, "agent", { input: user("remove it") })).rejects.toThrow("ValueError: Attempting to delete a message with an ID that doesn't exist ('nope')");
    const got = await client.threads.get(thread.thread_id);
    expect(got.status).toBe("error");
    expect((got.values as { messages: Message[] }).messages.map((m) => m.content)).toEqual(["remove it"]);
  });

  it("an input message LangGraph cannot read fails the run at its start", async () => {
    const thread = await client.threads.create();
    const res = await request(mock.url)
      .post(`/threads/${thread.thread_id}/runs/wait`)
      .send({ assistant_id: "agent", input: { messages: [{ role: "robot", content: "remove" }] } })
      .expect(200);
    expect(res.body).toEqual({
      __error__: { error: "ValueError", message: "Unexpected message type: 'robot'. Use one of 'human', 'user', 'ai', 'assistant', 'function', 'tool', 'system', or 'developer'." },
    });
  });

  it("refuses a turn with both events and steps, and a step without a node or named like a graph's own", async () => {
    const err = await mock.loadScenarios([
      { name: "both", turns: [{ events: [], steps: [] }] },
      { name: "start", steps: [{ node: "__start__", update: {} }] },
    ] as ScenarioInput[]).catch((e: { problems: { pointer: string; reason: string }[] }) => e);
    expect((err as { problems: { file: string; pointer: string; reason: string }[] }).problems.map((p) => [p.pointer, p.reason.split(";")[0]])).toEqual([
      ["/turns/0/steps", "give either events or steps in a turn, not both"],
      ["/steps/0/node", '"__start__", "__end__" and "__interrupt__" are LangGraph\'s own names, not a node of the graph'],
    ]);
  });
});

describe("the graphs fixture's channels", () => {
  it("refuses a reducer it does not know, with file, pointer and reason", async () => {
    const start = startMockServer({ port: 0, fixtures: [{ graphs: [{ graph_id: "g", channels: { messages: "merge" } }] }] });
    await expect(start).rejects.toThrow('<fixtures object 1>#/graphs/0/channels/messages: must be one of "add_messages", "append", "last_value"; got "merge"');
  });
});
