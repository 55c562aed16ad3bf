import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { checkScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { readDocuments } from "../../src/core/read-documents.js";

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

  it("the bundled catalogue has no warnings", () => {
    const docs = readDocuments([join(import.meta.dirname, "../../scenarios")], [], true);
    expect(checkScenarioDocuments(docs).warnings).toEqual([]);
  });
});
