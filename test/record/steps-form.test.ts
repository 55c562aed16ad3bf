import { describe, expect, it } from "vitest";
import { toMessage } from "../../src/agent-server/reducers.js";
import { stepsOf, type StepsContext, type TimedEvent } from "../../src/record/steps-form.js";

/** The rule that decides steps or events (docs/recording.md "Steps or events"), on hand-made recordings. */

// Messages as the recorded server streams them: whole, as the mock's own coercion makes them.
const human = toMessage({ role: "user", content: "hi" }, () => "h-1");
const reply = toMessage({ type: "ai", content: "hello", id: "a-1" }, () => "unused");
const context: StepsContext = { modes: new Set(["updates", "values"]), prior: { messages: [] }, input: { messages: [{ role: "user", content: "hi" }] }, command: undefined };
const stream: TimedEvent[] = [
  { event: "values", data: { messages: [human] }, atMs: 5 },
  { event: "updates", data: { agent: { messages: [reply], mood: "ok" } }, atMs: 300 },
  { event: "values", data: { messages: [human, reply], mood: "ok" }, atMs: 301 },
  { event: "updates", data: { tools: null }, atMs: 420 },
  { event: "values", data: { messages: [human, reply], mood: "ok" }, atMs: 421 },
];

describe("stepsOf", () => {
  it("gives one step per root update, each waiting what the recording waited since the step before", () => {
    expect(stepsOf(stream, context)).toEqual([
      // The fields the mock's coercion fills in anyway are left out: it streams them back as recorded.
      { node: "agent", update: { messages: [{ type: "ai", content: "hello", id: "a-1" }], mood: "ok" }, delay_ms: 300 },
      { node: "tools", update: null, delay_ms: 120 },
    ]);
  });

  it("keeps the events when a values event is not the reducers' state", () => {
    const drifted = stream.map((e, i) => (i === 2 ? { ...e, data: { messages: [human, reply], mood: "sad" } } : e));
    expect(stepsOf(drifted, context)).toBeUndefined();
  });

  it("keeps the events when the start is not the prior state with the input", () => {
    expect(stepsOf(stream, { ...context, prior: { messages: [], mood: "sad" } })).toBeUndefined();
    expect(stepsOf(stream, { ...context, prior: undefined })).toBeUndefined();
  });

  it("keeps the events when a values event is missing, or a mode cannot be checked", () => {
    expect(stepsOf(stream.slice(1), context)).toBeUndefined();
    expect(stepsOf(stream, { ...context, modes: new Set(["updates", "values", "messages-tuple"]) })).toBeUndefined();
    expect(stepsOf(stream, { ...context, modes: new Set(["values"]) })).toBeUndefined();
  });

  it("keeps the events when an update is not what the mock would stream for it (a message without an id)", () => {
    const { id: _id, ...anonymous } = reply;
    const updates = [{ event: "updates", data: { agent: { messages: [anonymous] } }, atMs: 1 }];
    expect(stepsOf(updates, { ...context, modes: new Set(["updates"]) })).toBeUndefined();
    expect(stepsOf([{ ...updates[0]!, data: { agent: { messages: [reply] } } }], { ...context, modes: new Set(["updates"]) })).toEqual([{ node: "agent", update: { messages: [{ type: "ai", content: "hello", id: "a-1" }] }, delay_ms: 1 }]);
  });

  it("keeps a field the coercion would fill in differently", () => {
    const named = { ...reply, name: "bot", additional_kwargs: { refusal: null } };
    const [step] = stepsOf([{ event: "updates", data: { agent: { messages: [named] } }, atMs: 0 }], { ...context, modes: new Set(["updates"]) }) ?? [];
    expect(step?.update).toEqual({ messages: [{ type: "ai", content: "hello", id: "a-1", name: "bot", additional_kwargs: { refusal: null } }] });
  });

  it("keeps the events of a subgraph update, an update naming two nodes, or one a step cannot hold", () => {
    const only = { ...context, modes: new Set(["updates"]) };
    expect(stepsOf([{ event: "updates|sub:1", data: { agent: null }, atMs: 0 }], only)).toBeUndefined();
    expect(stepsOf([{ event: "updates", data: { a: null, b: null }, atMs: 0 }], only)).toBeUndefined();
    expect(stepsOf([{ event: "updates", data: { "a|b": null }, atMs: 0 }], only)).toBeUndefined();
    expect(stepsOf([{ event: "updates", data: { agent: "text" }, atMs: 0 }], only)).toBeUndefined();
    expect(stepsOf([{ event: "updates", data: { agent: null }, atMs: 0 }], only)).toEqual([{ node: "agent", update: null }]);
  });
});
