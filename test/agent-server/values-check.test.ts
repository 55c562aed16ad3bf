import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { checkFixtureFiles } from "../../src/fixture-check.js";

/** `validate`'s warning: a scripted `values` event the reducers disagree with (src/agent-server/values-check.ts). */
const check = (content: unknown) => checkScenarioDocuments([{ file: "s.json", content }]);
const ai = (id: string, content: string) => ({ type: "ai", id, content });

describe("scripted values checked against the reduced state", () => {
  it("warns at the values event with the first differing key, and still loads the scenario", () => {
    const result = check({
      name: "s",
      turns: [
        { events: [{ event: "values", data: { messages: [] } }] },
        {
          events: [
            { event: "updates", data: { agent: { messages: [ai("a1", "Hi")] } } },
            { event: "values", data: { messages: [ai("a1", "Hello")] } },
          ],
        },
      ],
    });
    expect(result.problems).toEqual([]);
    expect(result.scenarios).toHaveLength(1);
    expect(result.warnings).toEqual([{ file: "s.json", pointer: "/turns/1/events/1/data", reason: expect.stringContaining('key "messages"') }]);
  });

  it("accepts values that hold what the steps wrote: the input unknown, messages by id, a removed message gone, appended items last", () => {
    const ok = check({
      name: "s",
      events: [
        { event: "updates", data: { agent: { messages: [ai("a1", "Hi")], mood: { n: 1, m: 2 } } } },
        { event: "values", data: { messages: [{ type: "human", id: "h", content: "from the input" }, ai("a1", "Hi")], mood: { m: 2, n: 1 } } },
        { event: "updates", data: { agent: { messages: [{ type: "remove", id: "a1" }] } } },
        { event: "values", data: { messages: [{ type: "human", id: "h", content: "from the input" }] } },
        { event: "updates", data: { agent: { messages: [ai("a2", "{{input.x}}")] } } },
        { event: "values", data: { messages: [] } },
      ],
    });
    expect(ok.warnings).toEqual([]);
    const removedStill = check({ name: "s", events: [{ event: "updates", data: { agent: { messages: [{ type: "remove", id: "a1" }] } } }, { event: "values", data: { messages: [ai("a1", "x")] } }] });
    expect(removedStill.warnings.map((w) => w.reason)).toEqual([expect.stringContaining('key "messages"')]);
  });

  it("uses the reducers the given fixtures declare for the scenario's graph (validate's path); a graph they do not describe is MessagesState", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-values-"));
    const fixtures = join(dir, "graphs.json");
    writeFileSync(fixtures, JSON.stringify({ graphs: [{ graph_id: "notes-bot", channels: { messages: "add_messages", notes: "append" } }] }));
    const { problems, graphs } = checkFixtureFiles([fixtures]);
    expect(problems).toEqual([]);
    // `notes` is an append channel of notes-bot: the state holds earlier notes before the one written.
    const events = [
      { event: "updates", data: { agent: { notes: ["b"] } } },
      { event: "values", data: { notes: ["a", "b"] } },
    ];
    const docs = [
      { file: "by-graph-id.json", content: { name: "by-graph-id", graph_id: "notes-bot", events } },
      { file: "by-assistant.json", content: { name: "by-assistant", match: { assistant_id: "notes-bot" }, events } },
      { file: "other-graph.json", content: { name: "other-graph", graph_id: "other", events } },
      { file: "no-graph.json", content: { name: "no-graph", events } },
    ];
    const lastValue = 'scripted values disagree with the state the reducers give at this point: key "notes" (the steps before wrote ["b"])';
    expect(checkScenarioDocuments(docs, graphs).warnings).toEqual([
      { file: "other-graph.json", pointer: "/events/1/data", reason: lastValue },
      { file: "no-graph.json", pointer: "/events/1/data", reason: lastValue },
    ]);
    // Without fixtures every graph is MessagesState, as before.
    expect(checkScenarioDocuments(docs).warnings.map((w) => w.file)).toEqual(docs.map((d) => d.file));
    // With the graph's reducers, values that lost the appended note still warn.
    const lost = { file: "lost.json", content: { name: "lost", graph_id: "notes-bot", events: [events[0], { event: "values", data: { notes: ["a"] } }] } };
    expect(checkScenarioDocuments([lost], graphs).warnings.map((w) => w.reason)).toEqual(['scripted values disagree with the state the reducers give at this point: key "notes" (the steps before wrote ["b"])']);
  });

  it("the bundled catalogue has no warnings", () => {
    const docs = readDocuments([join(import.meta.dirname, "../../scenarios")], [], true);
    expect(checkScenarioDocuments(docs).warnings).toEqual([]);
  });
});
