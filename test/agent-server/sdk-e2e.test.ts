import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-1";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { waitFor } from "./helpers.js";
import { contextOf } from "../../src/mock-control.js";
import { feedbackTokensIn } from "../../src/tracing/feedback-tokens.js";
import { runsIn } from "../../src/agent-server/runs.js";

type AnyClient = InstanceType<typeof Client2>;

const SDKS: [string, "2.0" | "1.15", (url: string) => AnyClient][] = [
  ["@langchain/langgraph-sdk 2.0.0", "2.0", (url) => new Client2({ apiUrl: url })],
  ["@langchain/langgraph-sdk 1.15 (langgraph-sdk-1)", "1.15", (url) => new Client1({ apiUrl: url }) as unknown as AnyClient],
];

type BundledEvent = { event: string; data: unknown };
type BundledEnding = string | { http: { status: number } } | { interrupt: { value: unknown } } | { error: { error: string; message: string } };
type BundledStep = { node: string; update: unknown };
type BundledTurn = { events?: BundledEvent[]; steps?: BundledStep[]; end?: BundledEnding };
type Bundled = BundledTurn & { name: string; turns?: BundledTurn[] };
const BUNDLED = readDocuments([BUNDLED_SCENARIOS], [], true).flatMap((d) => (Array.isArray(d.content) ? d.content : [d.content])) as Bundled[];

/** A message (and metadata) that selects each bundled scenario. */
const TRIGGERS: Record<string, { text: string; metadata?: Record<string, unknown> }> = {
  "weather-answer": { text: "What's the weather in Paris?" },
  "human-approval": { text: "Email the quarterly report to the team" },
  "trip-planner": { text: "Plan a trip for me" },
  "research-subgraph": { text: "research SSE framing" },
  "report-progress": { text: "Write the report" },
  "tool-error": { text: "What is the stock price of ACME?" },
  "refused-run": { text: "hi", metadata: { simulate: "refusal" } },
  "dropped-connection": { text: "please hang up" },
  "nightly-digest": { text: "Compile the nightly digest" },
  "remember-preference": { text: "Remember that I prefer window seats" },
  echo: { text: "hello there" },
};

/** A scenario event's data as a matcher: templated strings are filled per run, so any value passes there. */
function templated(data: unknown): unknown {
  if (typeof data === "string") return data.includes("{{") ? expect.anything() : data;
  if (Array.isArray(data)) return data.map(templated);
  if (data && typeof data === "object") return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, templated(v)]));
  return data;
}

const user = (content: string) => ({ messages: [{ role: "user", content }] });

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

describe.each(SDKS)("end to end with %s against the bundled scenarios", (_name, sdk, makeClient) => {
  let mock: MockServer;
  let client: AnyClient;
  const tokens = () => [...feedbackTokensIn(contextOf(mock.control)).values()];

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 42, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
    client = makeClient(mock.url);
  });
  afterAll(async () => {
    await mock.close();
  });

  it("has a trigger for every bundled scenario", () => {
    expect(BUNDLED.map((s) => s.name).sort()).toEqual(Object.keys(TRIGGERS).sort());
  });

  it("streams a run with feedbackKeys and ends with a feedback event whose tokens exist", async () => {
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "agent", { input: user("What's the weather in Paris?"), streamMode: ["updates", "values"], feedbackKeys: ["user_liked", "user_disliked"] }),
    );
    const names = parts.map((p) => p.event);
    expect(names[0]).toBe("metadata");
    expect(names.at(-1)).toBe("feedback");
    expect(names.slice(1, -1)).toEqual(["values", "updates", "values", "updates", "values", "updates", "values"]);
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    const feedback = parts.at(-1)!.data as Record<string, string>;
    expect(Object.keys(feedback)).toEqual(["user_liked", "user_disliked"]);
    for (const [key, url] of Object.entries(feedback)) {
      const match = new RegExp(`^${mock.tracingUrl}/api/v1/feedback/tokens/([0-9a-f-]{36})$`).exec(url);
      expect(match).not.toBeNull();
      expect(tokens().find((t) => t.id === match![1])).toMatchObject({ run_id: runId, thread_id: thread.thread_id, feedback_key: key, scenario: "weather-answer" });
    }
    // The URLs work: the tracing service records one feedback per use.
    const posted = await fetch(feedback.user_liked!, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ score: 1 }) });
    expect(posted.status).toBe(200);
    expect(mock.feedback({ run_id: runId }).map((f) => [f.key, f.thread_id, f.scenario])).toEqual([["user_liked", thread.thread_id, "weather-answer"]]);
    const last = parts.at(-2)!.data as { messages: { type: string; content: string }[] };
    expect(last.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(last.messages[0]!.content).toBe("What's the weather in Paris?");
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("success");
    expect((await client.threads.get(thread.thread_id)).values).toEqual(last);
  });

  // The "done when", for every bundled scenario: the call below yields the scenario's own
  // events (in the requested modes) and ends as the scenario ends; on success with working feedback URLs.
  it.each(Object.entries(TRIGGERS))("streams the bundled scenario %s as its file scripts it", async (name, trigger) => {
    const scenario = BUNDLED.find((s) => s.name === name)!;
    const thread = await client.threads.create();
    const since = mock.requests().length;
    const run = () =>
      collect(client.runs.stream(thread.thread_id, "agent", { input: user(trigger.text), metadata: trigger.metadata, streamMode: ["updates", "values"], feedbackKeys: ["user_liked", "user_disliked"] }));
    const ending = scenario.end ?? scenario.turns?.[0]?.end ?? "success";
    if (typeof ending === "object" && "http" in ending) {
      await expect(run()).rejects.toThrow(`HTTP ${ending.http.status}`);
      return;
    }
    const parts = await run();
    const runId = (parts[0]!.data as { run_id: string }).run_id;
    const turn: BundledTurn = scenario.turns?.[0] ?? scenario;
    const scripted = (turn.events ?? []).filter((e) => ["updates", "values"].includes(e.event));
    const expected: { event: string; data: unknown }[] = [{ event: "metadata", data: { run_id: expect.any(String), attempt: 1 } }];
    // A mode the turn does not script is derived from its steps: `values` once the input is applied and
    // after each step, `updates` per step of the short form (their content: test/agent-server/derived-modes.test.ts).
    const scriptsValues = scripted.some((e) => e.event === "values");
    const derivedValues = { event: "values", data: expect.objectContaining({ messages: expect.any(Array) }) };
    if (!scriptsValues) expected.push(derivedValues);
    for (const step of turn.steps ?? []) expected.push({ event: "updates", data: { [step.node]: expect.anything() } }, derivedValues);
    for (const e of scripted) {
      expected.push({ event: e.event, data: templated(e.data) });
      if (e.event === "updates" && !scriptsValues) expected.push(derivedValues);
    }
    if (typeof ending === "object" && "interrupt" in ending) {
      // In each of the requested modes updates and values, updates first.
      for (const event of ["updates", "values"]) expected.push({ event, data: { __interrupt__: [{ value: ending.interrupt.value, id: expect.any(String) }] } });
    }
    // The error event is the exception, `{error, message}`; the ending's `node` names who raised it.
    if (typeof ending === "object" && "error" in ending) expected.push({ event: "error", data: { error: ending.error.error, message: ending.error.message } });
    const succeeded = ending === "success" || ending === "interrupt" || (typeof ending === "object" && "interrupt" in ending);
    if (succeeded) expected.push({ event: "feedback", data: { user_liked: expect.any(String), user_disliked: expect.any(String) } });
    expect(parts.map((p) => ({ event: p.event, data: p.data }))).toEqual(expected);

    const status = (await client.runs.get(thread.thread_id, runId)).status;
    expect(status).toBe(succeeded ? "success" : "error");
    // After the stream: 2.x asks nothing more; 1.15 reads the run (Location was sent) and, the run
    // being over, does not reconnect. A dropped connection is resumed once at the join-stream route.
    const followUps = mock
      .requests()
      .slice(since + 1)
      .filter((r) => r.path.includes(runId))
      .map((r) => `${r.method} ${r.path.slice(r.path.indexOf("/runs/"))} ${r.status}`);
    const reconnect = ending === "disconnect" ? [`GET /runs/${runId}/stream 200`] : [];
    const statusCheck = sdk === "1.15" && !(typeof ending === "object" && "error" in ending) ? [`GET /runs/${runId} 200`] : [];
    expect(followUps.slice(0, -1)).toEqual([...reconnect, ...statusCheck]);

    if (!succeeded) return;
    const feedback = parts.at(-1)!.data as Record<string, string>;
    for (const [key, url] of Object.entries(feedback)) {
      expect(url).toMatch(new RegExp(`^${mock.tracingUrl}/api/v1/feedback/tokens/[0-9a-f-]{36}$`));
      const posted = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ score: 1 }) });
      expect(posted.status).toBe(200);
      expect(mock.feedback({ run_id: runId, key }).map((f) => [f.thread_id, f.scenario])).toEqual([[thread.thread_id, name]]);
    }
  });

  it("reports the error ending as an error event and the run as error", async () => {
    const thread = await client.threads.create();
    const parts = await collect(client.runs.stream(thread.thread_id, "agent", { input: user("What is the stock price of ACME?"), streamMode: ["updates"], feedbackKeys: ["user_liked"] }));
    expect(parts.map((p) => p.event)).toEqual(["metadata", "updates", "error"]);
    expect(parts.at(-1)!.data).toEqual({ error: "ToolException", message: "get_stock_price failed: upstream quote service returned 503" });
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.status).toBe("error");
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");
  });

  it("interrupts for approval, then resumes with a command", async () => {
    const thread = await client.threads.create();
    const first = await collect(client.runs.stream(thread.thread_id, "agent", { input: user("Email the quarterly report to the team"), streamMode: ["updates", "values"] }));
    const interrupt = first.find((p) => p.event === "updates" && "__interrupt__" in (p.data as object));
    expect(interrupt!.data).toMatchObject({ __interrupt__: [{ value: { question: "Send this email?" } }] });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["human_review"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const resumed = await collect(client.runs.stream(thread.thread_id, "agent", { command: { resume: "approve" }, streamMode: ["updates"] }));
    expect(resumed.map((p) => p.event)).toEqual(["metadata", "updates", "updates", "updates"]);
    expect(resumed[1]!.data).toEqual({ human_review: { decision: "approve" } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("background run + join, joinStream, runs.wait, cancel and stateless streams", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", { input: user("hello"), streamResumable: true });
    expect(run.status).toBe("pending");
    const joined = await client.runs.join(thread.thread_id, run.run_id);
    expect((joined as { messages: { content: string }[] }).messages[1]!.content).toBe("You said: hello");
    const replay = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));
    // A resumable run replays; without stream_mode it published its default mode (values) only: echo's
    // one step gives the state with the input, then the state after the step, as LangGraph streams them.
    expect(replay.map((p) => p.event)).toEqual(["metadata", "values", "values"]);
    expect((replay[1]!.data as { messages: unknown[] }).messages).toHaveLength(1);
    expect(replay[0]!.id).toMatch(/^\d+-0$/);
    expect(replay[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id, attempt: 1 } });

    const waited = await client.runs.wait(thread.thread_id, "agent", { input: user("What's the weather?") });
    // weather-answer's steps are reduced into the thread's state: the echo run's two messages stay.
    expect((waited as { messages: { type: string }[] }).messages.map((m) => m.type)).toEqual(["human", "ai", "human", "ai", "tool", "ai"]);
    await expect(client.runs.wait(thread.thread_id, "agent", { input: user("stock price please") })).rejects.toThrow("ToolException: get_stock_price failed");

    const stateless = await collect(client.runs.stream(null, "agent", { input: user("hello"), streamMode: "values", feedbackKeys: ["k"] }));
    expect(stateless.map((p) => p.event)).toEqual(["metadata", "values", "values", "feedback"]);

    const other = await client.threads.create();
    const pending = await client.runs.create(other.thread_id, "agent", { input: user("hello"), afterSeconds: 3600 });
    await client.runs.cancel(other.thread_id, pending.run_id, true);
    expect((await client.runs.get(other.thread_id, pending.run_id)).status).toBe("interrupted");
  });

  it("surfaces the scripted refusal and the no-match error as HTTP errors", async () => {
    const thread = await client.threads.create();
    await expect(collect(client.runs.stream(thread.thread_id, "agent", { input: user("hi"), metadata: { simulate: "refusal" } }))).rejects.toThrow(/403/);
    await expect(collect(client.runs.stream(thread.thread_id, "agent", { input: { nothing: true } }))).rejects.toThrow(/422.*No scenario matches this run/s);
  });

  it("a client that aborts mid-stream leaves the mock healthy; onDisconnect cancel interrupts the run, continue lets it finish", async () => {
    const slow = await startMockServer({ port: 0, seed: 42, fixtures: false, clock: { autoAdvance: false }, scenarios: [{ name: "slow", events: [{ event: "values", data: { step: 1 } }, { event: "values", data: { step: 2 }, delay_ms: 60_000 }] }] });
    try {
      const sdk = makeClient(slow.url);
      const leave = async (onDisconnect: "cancel" | "continue") => {
        const thread = await sdk.threads.create();
        const controller = new AbortController();
        const seen: string[] = [];
        // Both SDKs end the iteration quietly when their signal aborts.
        for await (const part of sdk.runs.stream(thread.thread_id, "agent", { input: {}, onDisconnect, signal: controller.signal })) {
          seen.push(part.event);
          if (seen.length === 2) controller.abort();
        }
        expect(seen).toEqual(["metadata", "values"]);
        const [run] = await sdk.runs.list(thread.thread_id);
        const expected = onDisconnect === "cancel" ? "interrupted" : "running";
        await waitFor(() => runsIn(contextOf(slow.control)).get(run!.run_id)?.status === expected);
        return { thread: thread.thread_id, run: run!.run_id };
      };
      const cancelled = await leave("cancel");
      expect((await sdk.runs.get(cancelled.thread, cancelled.run)).status).toBe("interrupted");
      expect(await sdk.threads.get(cancelled.thread)).toMatchObject({ status: "idle", values: { step: 1 } });
      const continued = await leave("continue");
      expect((await sdk.runs.get(continued.thread, continued.run)).status).toBe("running");
      slow.clock.advance("1m");
      await waitFor(() => runsIn(contextOf(slow.control)).get(continued.run)?.status === "success");
      expect(await sdk.threads.get(continued.thread)).toMatchObject({ status: "idle", values: { step: 2 } });
    } finally {
      await slow.close();
    }
  });

  it("searches assistants and finds the default assistant of graph agent", async () => {
    const assistants = await client.assistants.search({ graphId: "agent" });
    expect(assistants.map((a) => [a.assistant_id, a.name, a.metadata])).toEqual([["fe096781-5601-53d2-b2f6-0d3403f7e9ca", "agent", { created_by: "system" }]]);
    expect((await client.assistants.get("fe096781-5601-53d2-b2f6-0d3403f7e9ca")).graph_id).toBe("agent");
  });
});

describe("what a run carries into its run record, checkpoints and thread, with @langchain/langgraph-sdk 2.0.0", () => {
  let mock: MockServer;
  let client: AnyClient;

  beforeAll(async () => {
    const steps = [
      { event: "updates", data: { agent: { answer: "one" } } },
      { event: "values", data: { answer: "one" } },
    ];
    mock = await startMockServer({ port: 0, seed: 42, fixtures: false, scenarios: [{ name: "answer", events: steps }] });
    client = new Client2({ apiUrl: mock.url });
  });
  afterAll(async () => {
    await mock.close();
  });

  it("merges the assistant's, the thread's, config.metadata and the request's metadata into the run's metadata and kwargs.config.metadata, later over earlier", async () => {
    const assistant = await client.assistants.create({ graphId: "agent", metadata: { team: "blue", level: "assistant" } });
    const thread = await client.threads.create({ metadata: { level: "thread", user_id: "u1" } });
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: {},
      // The SDK's Config type lacks `metadata`; the request sends it as given.
      config: { metadata: { level: "config", from_config: true } } as Record<string, unknown>,
      metadata: { level: "request" },
    });
    const merged = { team: "blue", level: "request", user_id: "u1", graph_id: "agent", assistant_id: assistant.assistant_id, from_config: true };
    expect(run.metadata).toEqual(merged);
    // The SDK's Run type lacks `kwargs`; the server sends it.
    expect((run as unknown as { kwargs: { config: { metadata?: unknown } } }).kwargs.config.metadata).toEqual(merged);
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).metadata).toEqual(merged);
    // The default assistant's `created_by` comes first; a run on it with no metadata still names it.
    const plain = await client.runs.create(thread.thread_id, "agent", { input: {} });
    expect(plain.metadata).toEqual({ created_by: "system", level: "thread", user_id: "u1", graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" });
    await client.runs.join(thread.thread_id, plain.run_id);
  });

  it("writes the run's scalar config metadata into every checkpoint's metadata, so history filters on it", async () => {
    const thread = await client.threads.create({ metadata: { tenant: "acme" } });
    const run = await client.runs.create(thread.thread_id, "agent", {
      input: {},
      config: { metadata: { user_id: "u7", __hidden: "x", nested: { a: 1 }, checkpoint_ns: "sub" } } as Record<string, unknown>,
      metadata: { purpose: "filter", tags: ["t"] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.length).toBeGreaterThan(1);
    for (const state of history) {
      expect(state.metadata).toMatchObject({ user_id: "u7", tenant: "acme", purpose: "filter", created_by: "system", run_id: run.run_id });
      // As LangGraph's get_checkpoint_metadata: no objects or lists, no `__` keys, no checkpoint keys.
      for (const key of ["__hidden", "nested", "tags", "checkpoint_ns"]) expect(state.metadata).not.toHaveProperty(key);
    }
    const found = await client.threads.getHistory(thread.thread_id, { metadata: { user_id: "u7" }, limit: 10 });
    expect(found.map((s) => s.checkpoint.checkpoint_id)).toEqual(history.map((s) => s.checkpoint.checkpoint_id));
    expect(await client.threads.getHistory(thread.thread_id, { metadata: { user_id: "someone-else" }, limit: 10 })).toEqual([]);
  });

  it("merges each run's config into the thread's config, and a later run's configurable starts from it", async () => {
    const thread = await client.threads.create();
    expect(thread.config).toEqual({});
    const first = await client.runs.create(thread.thread_id, "agent", { input: {}, config: { tags: ["first"], configurable: { model: "small", temperature: 0 } } });
    await client.runs.join(thread.thread_id, first.run_id);
    const after = await client.threads.get(thread.thread_id);
    // The run's identity, request id and `__` keys stay the run's own.
    expect(after.config).toEqual({ tags: ["first"], configurable: { model: "small", temperature: 0, "user-agent": expect.any(String) } });
    const second = await client.runs.create(thread.thread_id, "agent", { input: {}, config: { configurable: { model: "large" } } });
    const configurable = (second as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } }).kwargs.config.configurable;
    expect(configurable).toMatchObject({ model: "large", temperature: 0, run_id: second.run_id, thread_id: thread.thread_id });
    await client.runs.join(thread.thread_id, second.run_id);
    expect((await client.threads.get(thread.thread_id)).config).toEqual({ tags: ["first"], configurable: { model: "large", temperature: 0, "user-agent": expect.any(String) } });
    expect((await client.threads.search({ metadata: { graph_id: "agent" }, limit: 100 })).find((t) => t.thread_id === thread.thread_id)?.config?.configurable).toMatchObject({ model: "large" });
  });

  it("threads.create with supersteps writes one checkpoint per superstep, its updates applied as updateState", async () => {
    const hi = { type: "human", content: "hi", id: "m1" };
    const hello = { type: "ai", content: "hello", id: "m2" };
    const thread = await client.threads.create({
      graphId: "agent",
      supersteps: [
        { updates: [{ values: { messages: [hi] }, asNode: "__start__" }] },
        { updates: [{ values: { messages: [hello] }, asNode: "agent" }, { values: { topic: "greeting" }, asNode: "tagger" }] },
      ],
    });
    // The state holds the messages as add_messages stores them (every field of their type); `writes` as sent.
    const stored = (m: { type: string; content: string; id: string }) => ({ content: m.content, additional_kwargs: {}, response_metadata: {}, type: m.type, name: null, id: m.id, ...(m.type === "ai" ? { tool_calls: [], invalid_tool_calls: [], usage_metadata: null } : {}) });
    expect(thread.values).toEqual({ messages: [stored(hi), stored(hello)], topic: "greeting" });
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((s) => [s.metadata?.source, s.metadata?.step, s.metadata?.writes, s.values])).toEqual([
      ["update", 0, { agent: { messages: [hello] }, tagger: { topic: "greeting" } }, { messages: [stored(hi), stored(hello)], topic: "greeting" }],
      ["update", -1, { __start__: { messages: [hi] } }, { messages: [stored(hi)] }],
    ]);
    expect(history[0]?.parent_checkpoint?.checkpoint_id).toBe(history[1]?.checkpoint.checkpoint_id);
    expect((await client.threads.getState(thread.thread_id)).checkpoint.checkpoint_id).toBe(history[0]?.checkpoint.checkpoint_id);
    // A thread with no graph cannot take them, as a state update cannot; it is not created.
    const id = "5b0a3c1e-8d2f-4a6b-9c7e-1f2a3b4c5d6e";
    await expect(client.threads.create({ threadId: id, supersteps: [{ updates: [{ values: {}, asNode: "agent" }] }] })).rejects.toThrow(/400/);
    await expect(client.threads.get(id)).rejects.toThrow(/404/);
  });
});
