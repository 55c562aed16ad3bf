import { describe, expect, it } from "vitest";
import { Client } from "langsmith";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { tracedMock } from "../support/traced-mock.js";

/**
 * A LangChain application traced the way LangChain does it: runnables with a `LangChainTracer` callback
 * whose `langsmith` client points at the mock. The tracer builds the run tree from callback events (not
 * `traceable`), with its own run types, names and serialized inputs; the mock must keep that tree too.
 */
describe("traces from a LangChain callback tracer", () => {
  const t = tracedMock();

  /** A chain that retrieves, then calls a tool that throws and recovers from it. */
  function chain() {
    const retrieve = RunnableLambda.from(async (question: string) => ({ docs: [`${question} is Paris`] })).withConfig({ runName: "retrieve" });
    const divide = RunnableLambda.from(async (_expr: string): Promise<number> => {
      throw new Error("division by zero");
    }).withConfig({ runName: "divide" });
    return RunnableLambda.from(async (input: { question: string }, config?: RunnableConfig) => {
      const found = await retrieve.invoke(input.question, config);
      const ratio = await divide.invoke("1/0", config).catch((err: Error) => err.message);
      return { answer: found.docs[0], ratio };
    }).withConfig({ runName: "qa_chain", tags: ["lc"], metadata: { user: "ada" } });
  }

  async function run(ls: Client): Promise<void> {
    const tracer = new LangChainTracer({ client: ls, projectName: "langchain-tests" });
    const out = await chain().invoke({ question: "capital of France" }, { callbacks: [tracer] });
    expect(out).toEqual({ answer: "capital of France is Paris", ratio: "division by zero" });
    // LangChain runs callbacks in the background; then the client sends what it batched.
    await awaitAllCallbacks();
    await ls.awaitPendingTraceBatches();
  }

  function expectNothingPrinted() {
    const printed = [...t.errors.mock.calls, ...t.warnings.mock.calls].map((args) => args.map(String).join(" "));
    expect(printed.filter((line) => /LangSmith|exporting|batch|multipart|Failed/i.test(line))).toEqual([]);
  }

  function expectTheTree() {
    const runs = t.mock.traces();
    expect(runs.map((r) => [r.name, r.run_type, r.status])).toEqual([
      ["qa_chain", "chain", "success"],
      ["retrieve", "chain", "success"],
      ["divide", "chain", "error"],
    ]);
    const [root, retrieve, divide] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
    expect(root).toMatchObject({
      parent_run_id: null,
      trace_id: root.id,
      inputs: { question: "capital of France" },
      outputs: { answer: "capital of France is Paris", ratio: "division by zero" },
      error: null,
      tags: ["lc"],
      session_name: "langchain-tests",
      extra: { metadata: { user: "ada" } },
    });
    expect(retrieve).toMatchObject({ parent_run_id: root.id, trace_id: root.id, inputs: { input: "capital of France" }, outputs: { docs: ["capital of France is Paris"] }, error: null });
    expect(divide).toMatchObject({ parent_run_id: root.id, trace_id: root.id, inputs: { input: "1/0" }, outputs: null });
    expect(divide.error).toContain("division by zero");
    for (const child of [retrieve, divide]) expect(child.dotted_order.startsWith(`${root.dotted_order}.`)).toBe(true);
    return { root, retrieve, divide };
  }

  it("multipart, gzip-compressed: the tree is in mock.traces() and readRun returns it with its children", async () => {
    const ls = new Client({ apiUrl: `${t.mock.tracingUrl}/api/v1`, apiKey: "ls-key" });
    await run(ls);
    expectNothingPrinted();
    const { root, retrieve, divide } = expectTheTree();
    // docs/tracing.md's assertion.
    expect(t.mock.traces({ parent_run_id: t.mock.traces({ name: "qa_chain" })[0]!.id }).map((r) => r.name)).toEqual(["retrieve", "divide"]);
    const posts = t.mock.requests({ path: "/api/v1/runs" });
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.path === "/api/v1/runs/multipart" && r.status === 202 && r.headers["content-encoding"] === "gzip")).toBe(true);

    const read = await ls.readRun(root.id, { loadChildRuns: true });
    expect(read).toMatchObject({ id: root.id, name: "qa_chain", run_type: "chain", status: "success", outputs: { answer: "capital of France is Paris" } });
    expect(read.child_runs?.map((c) => [c.id, c.name, c.status, c.error ?? null])).toEqual([
      [retrieve.id, "retrieve", "success", null],
      [divide.id, "divide", "error", divide.error],
    ]);
    const children: string[] = [];
    for await (const r of ls.listRuns({ projectName: "langchain-tests", parentRunId: root.id })) children.push(r.name);
    expect(children.sort()).toEqual(["divide", "retrieve"]);
  });

  it("multipart without compression, and the JSON batch endpoint", async () => {
    process.env.LANGSMITH_DISABLE_RUN_COMPRESSION = "true";
    const plain = new Client({ apiUrl: `${t.mock.tracingUrl}/api/v1`, apiKey: "ls-key" });
    await run(plain);
    expectNothingPrinted();
    expectTheTree();
    expect(t.mock.requests({ path: "/api/v1/runs" }).every((r) => r.path === "/api/v1/runs/multipart" && r.headers["content-encoding"] === undefined)).toBe(true);

    t.mock.reset();
    const batch = new Client({ apiUrl: `${t.mock.tracingUrl}/api/v1`, apiKey: "ls-key" });
    // What the client does after a server without the multipart endpoint answered 404: the JSON batch endpoint.
    (batch as unknown as { _multipartDisabled: boolean })._multipartDisabled = true;
    await run(batch);
    expectNothingPrinted();
    expectTheTree();
    const posts = t.mock.requests({ path: "/api/v1/runs" });
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.path === "/api/v1/runs/batch" && r.status === 202)).toBe(true);
  });
});
