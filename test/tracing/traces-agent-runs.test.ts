import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client as LangGraphClient } from "@langchain/langgraph-sdk";
import { Client as LangSmithClient } from "langsmith";
import { defineScenario, startMockServer, type MockServer } from "../../src/index.js";

const PLANNED = defineScenario({
  name: "planned",
  match: { assistant_id: "agent", input: { messages: [{ content: "plan" }] } },
  events: [
    { event: "updates", data: { planner: { plan: ["search", "answer"] } } },
    { event: "updates", data: { tools: { results: ["r1"] } } },
    { event: "values", data: { plan: ["search", "answer"], results: ["r1"], answer: "done" } },
  ],
});

const BROKEN = defineScenario({
  name: "broken",
  match: { assistant_id: "agent", input: { messages: [{ content: "break" }] } },
  events: [{ event: "updates", data: { planner: { plan: [] } } }],
  end: { error: { error: "ToolError", message: "the search tool timed out" } },
});

/**
 * The agent server's runs are traced as production traces them: a run streamed through the LangGraph
 * SDK is a root run in the tracing service, readable by its run id through the langsmith client, with
 * its steps as child runs and the feedback its URLs recorded.
 */
describe("agent-server runs in the tracing service", () => {
  let mock: MockServer;
  let langgraph: LangGraphClient;
  let langsmith: LangSmithClient;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 44, scenarios: [PLANNED, BROKEN] });
    langgraph = new LangGraphClient({ apiUrl: mock.url });
    langsmith = new LangSmithClient({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "unused" });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  async function stream(content: string, feedbackKeys: string[] = []) {
    const thread = await langgraph.threads.create();
    const events: { event: string; data: unknown }[] = [];
    for await (const part of langgraph.runs.stream(thread.thread_id, "agent", { input: { messages: [{ role: "user", content }] }, streamMode: ["updates", "values"], feedbackKeys })) events.push(part);
    return { threadId: thread.thread_id, runId: (events[0]?.data as { run_id: string }).run_id, events };
  }

  it("a streamed run is a root run with its input, final state and one child run per node, read back by run id", async () => {
    const { threadId, runId, events } = await stream("plan", ["user_liked"]);
    const urls = events.at(-1)?.data as Record<string, string>;
    const submitted = await fetch(urls.user_liked!, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ score: 1, comment: "good plan" }) });
    expect(submitted.status).toBe(200);

    const run = await langsmith.readRun(runId, { loadChildRuns: true });
    expect(run).toMatchObject({
      id: runId,
      trace_id: runId,
      name: "agent",
      run_type: "chain",
      status: "success",
      error: null,
      parent_run_id: null,
      inputs: { messages: [{ role: "user", content: "plan" }] },
      outputs: { plan: ["search", "answer"], results: ["r1"], answer: "done" },
      extra: { metadata: { thread_id: threadId, graph_id: "agent", scenario: "planned" } },
      feedback_stats: { user_liked: { n: 1, avg: 1 } },
    });
    expect(run.child_runs?.map((c) => [c.name, c.parent_run_id, c.outputs, c.tags])).toEqual([
      ["planner", runId, { plan: ["search", "answer"] }, ["graph:step:1"]],
      ["tools", runId, { results: ["r1"] }, ["graph:step:2"]],
    ]);
    // The feedback submitted through the URL is on that run.
    const feedback = [];
    for await (const f of langsmith.listFeedback({ runIds: [runId] })) feedback.push(f);
    expect(feedback).toMatchObject([{ key: "user_liked", score: 1, comment: "good plan", run_id: runId }]);
    // And in the assertions surface, under the default project.
    expect(mock.traces({ trace_id: runId }).map((t) => [t.name, t.session_name])).toEqual([
      ["agent", "default"],
      ["planner", "default"],
      ["tools", "default"],
    ]);
  });

  it("an errored ending is an errored run", async () => {
    const { runId } = await stream("break");
    const [root] = mock.traces({ trace_id: runId, name: "agent" });
    expect(root).toMatchObject({ id: runId, status: "error", error: "ToolError: the search tool timed out", outputs: null });
    expect(mock.traces({ parent_run_id: runId }).map((t) => t.name)).toEqual(["planner"]);
    const errored = [];
    for await (const r of langsmith.listRuns({ projectName: "default", error: true })) errored.push(r.id);
    expect(errored).toEqual([runId]);
  });

  it("reset('traces') forgets the runs the tracing service captured, and nothing else", async () => {
    const { runId } = await stream("plan");
    expect(mock.traces({ trace_id: runId })).toHaveLength(3);
    mock.reset("traces");
    expect(mock.traces()).toEqual([]);
    expect(mock.control.runs()).toHaveLength(1);
    await expect(langsmith.readRun(runId)).rejects.toThrow(/404|not found/i);
  });
});
