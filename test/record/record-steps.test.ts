import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import type { Scenario } from "../../src/index.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { normaliseTranscript, type Transcript } from "../support/transcript-normalise.js";
import { capturingClient, drain, recordAndReplay, user } from "./helpers.js";

/** Issue 26: a recording of a client that streamed `updates` (and `values`) is written as `steps`, and replays as seen. */

const ai = (id: string, content: string, extra: Record<string, unknown> = {}) => ({ type: "ai", id, content, ...extra });

/** What the session.recorded server plays: its streams are the mock's derivation of these steps. */
const UPSTREAM: Scenario[] = [
  {
    name: "weather-thread",
    match: { input: { messages: [{ content: { $contains: "weather" } }] } },
    turns: [
      {
        steps: [
          { node: "agent", update: { messages: [ai("ai-{{run_id}}-1", "", { tool_calls: [{ name: "get_weather", args: { city: "Paris" }, id: "call_1", type: "tool_call" }] })] } },
          { node: "tools", delay_ms: 300, update: { messages: [{ type: "tool", id: "{{id.tool}}", content: "Sunny, 22 °C", tool_call_id: "call_1" }] } },
          { node: "agent", update: { messages: [ai("ai-{{run_id}}-2", "It's sunny in Paris.")] } },
        ],
      },
      { steps: [{ node: "agent", update: { messages: [ai("ai-{{run_id}}-3", "Still sunny.")], mood: "cheerful" } }] },
    ],
  },
  { name: "stateless", match: { input: { messages: [{ content: { $contains: "stateless" } }] } }, steps: [{ node: "agent", update: { messages: [ai("ai-{{run_id}}", "Done.")] } }] },
];

/** Two runs on a thread with `updates` and `values`, then stateless runs: `updates` only, and with `messages-tuple`. */
async function runSession(baseUrl: string): Promise<Transcript> {
  const { client, at, transcript } = capturingClient(baseUrl);
  at("threads.create");
  const thread = await client.threads.create();
  at("turn 1");
  await drain(client.runs.stream(thread.thread_id, "agent", { input: user("What's the weather in Paris?"), streamMode: ["updates", "values"] }));
  at("turn 2");
  await drain(client.runs.stream(thread.thread_id, "agent", { input: user("And now?"), streamMode: ["values", "updates"] }));
  at("state");
  await client.threads.getState(thread.thread_id);
  at("history");
  await client.threads.getHistory(thread.thread_id);
  at("stateless updates");
  await drain(client.runs.stream(null, "agent", { input: user("stateless please"), streamMode: ["updates"] }));
  at("stateless messages-tuple");
  await drain(client.runs.stream(null, "agent", { input: user("stateless again"), streamMode: ["updates", "messages-tuple"] }));
  return transcript();
}

describe("record writes steps when the stream was node updates", () => {
  // The upstream's seeded clock sends each stream at once; a standing recorder clock keeps the
  // machine's jitter (a millisecond here and there) out of the written delays.
  const session = recordAndReplay({ upstream: { scenarios: UPSTREAM }, now: () => 0, session: runSession });
  const file = (i: number) => parse(readFileSync(session.recorder.files[i] as string, "utf8")) as Record<string, any>;

  it("writes each run's root updates as steps, without events", () => {
    expect(session.recorder.files).toHaveLength(3);
    const thread = file(0);
    expect(thread.turns.map((t: Record<string, unknown>) => Object.keys(t).sort())).toEqual([["end", "steps"], ["end", "steps"]]);
    const [first, second] = thread.turns as { steps: { node: string; update: Record<string, any> }[] }[];
    expect(first?.steps.map((s) => s.node)).toEqual(["agent", "tools", "agent"]);
    expect(first?.steps[0]?.update.messages[0]).toMatchObject({ type: "ai", id: "ai-{{run_id}}-1", tool_calls: [{ name: "get_weather", id: "call_1" }] });
    // Written short: the fields the mock fills in anyway (additional_kwargs, status…) are left session.out.
    expect(first?.steps[1]?.update.messages[0]).toEqual({ content: "Sunny, 22 °C", type: "tool", id: "{{id.message-1}}", tool_call_id: "call_1" });
    expect(second?.steps).toEqual([{ node: "agent", update: { messages: [expect.objectContaining({ id: "ai-{{run_id}}-3", content: "Still sunny." })], mood: "cheerful" } }]);
    expect(file(1)).toMatchObject({ steps: [{ node: "agent", update: { messages: [{ id: "ai-{{run_id}}", content: "Done." }] } }] });
    expect(file(1).events).toBeUndefined();
  });

  it("keeps the events of a run that streamed a mode it cannot check (messages-tuple)", () => {
    expect(file(2).steps).toBeUndefined();
    expect(file(2).events.map((e: { event: string }) => e.event)).toEqual(["messages", "updates"]);
  });

  it("the session.recorded files pass validate", () => {
    expect(validateScenarioDocuments(readDocuments([session.out], [], true))).toEqual([]);
  });

  it("replaying the steps gives the SSE transcript the client saw, normalised for ids and times", () => {
    expect(session.replayed.exchanges.map((e) => e.response.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);
    const a = normaliseTranscript(session.recorded);
    const b = normaliseTranscript(session.replayed);
    const blocks = (t: Transcript) => t.exchanges.map((e) => (typeof e.response.body === "object" && e.response.body !== null && "blocks" in e.response.body ? (e.response.body as { blocks: unknown[] }).blocks : null));
    expect(blocks(b)).toEqual(blocks(a));
    // The turn-1 stream as the client saw it: the start, then each node's update and the state after it.
    expect((blocks(a)[1] as { event: string }[]).map((x) => x.event)).toEqual(["metadata", "values", "updates", "values", "updates", "values", "updates", "values"]);
    expect(b.exchanges).toEqual(a.exchanges);
  });
});
