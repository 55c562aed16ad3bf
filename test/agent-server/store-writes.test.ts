import { describe, expect, it } from "vitest";
import request from "supertest";
import { mockOf } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { appForFile } from "../support/app-presets.js";
import { newThread, waitRun } from "../support/agent-server.js";

// Scenario turns write to the agent server's long-term store (`store:` in a turn), as a graph node
// calling store.put / store.delete would: the writes are made when the run gets to its end.

const forget: ScenarioInput = {
  name: "forget",
  match: { input: { forget: true } },
  events: [{ event: "values", data: { forgot: true } }],
  store: [{ delete: { namespace: ["memories", "{{thread_id}}"], key: "preference" } }],
};
const failing: ScenarioInput = {
  name: "failing",
  match: { input: { fail: true } },
  events: [{ event: "values", data: { half: true } }],
  end: { error: { error: "ValueError", message: "boom" } },
  store: [{ put: { namespace: ["memories", "{{thread_id}}"], key: "never", value: { written: true } } }],
};
const asking: ScenarioInput = {
  name: "asking",
  match: { input: { ask: true } },
  turns: [
    { events: [{ event: "values", data: { q: "?" } }], end: { interrupt: { value: "which?" } }, store: [{ put: { namespace: ["drafts"], key: "{{thread_id}}", value: { step: 1 }, ttl: 1 } }] },
    { events: [{ event: "values", data: { q: "done" } }] },
  ],
};

const app = appForFile("agentServer", { scenarios: [BUNDLED_SCENARIOS, forget, failing, asking] });
const item = async (namespace: string, key: string) => (await request(app).get("/store/items").query({ namespace, key }).expect(200)).body;

describe("store writes scripted by scenario turns", () => {
  it("the bundled remember-preference scenario puts the user's words under the thread; a later turn deletes them", async () => {
    const tid = await newThread(app);
    await waitRun(app, tid, { assistant_id: "agent", input: { messages: [{ role: "user", content: "Remember that I prefer window seats" }] } });
    const saved = await item(`memories.${tid}`, "preference");
    const [run] = mockOf(app).runs({ thread_id: tid });
    expect(saved).toEqual({
      namespace: ["memories", tid],
      key: "preference",
      // Templates are filled when the run is created ({{now}}); the write is made when it ends.
      value: { text: "Remember that I prefer window seats", saved_at: "2026-01-15T09:00:00.000000+00:00", run_id: run!.run_id },
      created_at: "2026-01-15T09:00:00.150000+00:00",
      updated_at: "2026-01-15T09:00:00.150000+00:00",
    });
    await waitRun(app, tid, { assistant_id: "agent", input: { forget: true } });
    expect(await item(`memories.${tid}`, "preference")).toBeNull();
  });

  it("a run that fails makes none of its writes; one that ends in an interrupt makes them (ttl on the mock clock)", async () => {
    const tid = await newThread(app);
    await request(app).post(`/threads/${tid}/runs/wait`).send({ assistant_id: "agent", input: { fail: true } }).expect(200);
    expect(await item(`memories.${tid}`, "never")).toBeNull();

    await waitRun(app, tid, { assistant_id: "agent", input: { ask: true } });
    expect((await item("drafts", tid)).value).toEqual({ step: 1 });
    mockOf(app).clock.advance("61s");
    expect(await item("drafts", tid)).toBeNull();
  });

  it("a write's templates are checked at load, with file and pointer", () => {
    const bad: ScenarioInput = { name: "bad", events: [], store: [{ put: { namespace: ["x"], key: "{{nope.here}}", value: {} } }] };
    expect(() => mockOf(app).use(bad)).toThrow(/\/store\/0\/put\/key.*nope/s);
  });
});
