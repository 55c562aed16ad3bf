import { describe, expect, it } from "vitest";
import { Client } from "langsmith";
import { traceable } from "langsmith/traceable";
import { tracedMock } from "../support/traced-mock.js";
import { runTracedAgent } from "../support/traced-agent.js";
import { RemoteMock } from "../../src/remote-mock.js";

/**
 * The real langsmith client, unchanged, tracing into the mock: `traceable` nested, with an erroring
 * child, in each of the ways the client exports (multipart compressed or not, the JSON batch endpoint,
 * one request per run), then read back with `readRun` and `listRuns`.
 */
describe("traces from the langsmith client", () => {
  const t = tracedMock();

  function client(options: { compression?: boolean; multipart?: boolean; autoBatch?: boolean } = {}): Client {
    // The client reads this when it is made; it is how a user turns compression off.
    if (options.compression === false) process.env.LANGSMITH_DISABLE_RUN_COMPRESSION = "true";
    const made = new Client({ apiUrl: `${t.mock.tracingUrl}/api/v1`, apiKey: "ls-key", autoBatchTracing: options.autoBatch ?? true });
    // What the client does after a server without the multipart endpoint answered 404: the JSON batch endpoint.
    if (options.multipart === false) (made as unknown as { _multipartDisabled: boolean })._multipartDisabled = true;
    return made;
  }

  const runAgent = (ls: Client, question: string) => runTracedAgent(ls, question, "unit-tests");

  function expectNothingPrinted() {
    const printed = [...t.errors.mock.calls, ...t.warnings.mock.calls].map((args) => args.map(String).join(" "));
    expect(printed.filter((line) => /LangSmith|exporting|batch|multipart|Failed/i.test(line))).toEqual([]);
  }

  function expectTheTree() {
    const runs = t.mock.traces();
    expect(runs.map((r) => [r.name, r.run_type, r.status])).toEqual([
      ["agent", "chain", "success"],
      ["lookup", "retriever", "success"],
      ["calculator", "tool", "error"],
    ]);
    const [agent, lookup, calculator] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
    expect(agent).toMatchObject({ parent_run_id: null, trace_id: agent.id, inputs: { question: "capital" }, outputs: { answer: "2 hits, division by zero" }, tags: ["e2e"], session_name: "unit-tests", extra: { metadata: { user: "ada" } } });
    expect(lookup).toMatchObject({ parent_run_id: agent.id, trace_id: agent.id, outputs: { hits: ["capital-1", "capital-2"] }, error: null });
    expect(calculator).toMatchObject({ parent_run_id: agent.id, trace_id: agent.id, outputs: null });
    expect(calculator.error).toContain("division by zero");
    expect(lookup.dotted_order.startsWith(`${agent.dotted_order}.`)).toBe(true);
    return { agent, lookup, calculator };
  }

  it("multipart, gzip-compressed (the client's default against the mock's /info)", async () => {
    const ls = client();
    await runAgent(ls, "capital");
    expectNothingPrinted();
    expectTheTree();
    const posts = t.mock.requests({ path: "/api/v1/runs" });
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.path === "/api/v1/runs/multipart" && r.status === 202 && r.headers["content-encoding"] === "gzip")).toBe(true);
  });

  it("multipart without compression", async () => {
    const ls = client({ compression: false });
    await runAgent(ls, "capital");
    expectNothingPrinted();
    expectTheTree();
    const posts = t.mock.requests({ path: "/api/v1/runs" });
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.path === "/api/v1/runs/multipart" && r.status === 202 && r.headers["content-encoding"] === undefined)).toBe(true);
  });

  it("the JSON batch endpoint", async () => {
    const ls = client({ multipart: false });
    await runAgent(ls, "capital");
    expectNothingPrinted();
    expectTheTree();
    const posts = t.mock.requests({ path: "/api/v1/runs" });
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.path === "/api/v1/runs/batch" && r.status === 202)).toBe(true);
  });

  it("one request per run (autoBatchTracing off): POST /runs and PATCH /runs/{id}", async () => {
    const ls = client({ autoBatch: false });
    await runAgent(ls, "capital");
    // Without batching the client does not wait for the root's last update: the test waits for it.
    await t.mock.waitFor.request({ method: "PATCH", path: "/api/v1/runs/" }, { count: 3 });
    expectNothingPrinted();
    const { agent } = expectTheTree();
    const calls = t.mock.requests({ path: "/api/v1/runs" }).map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/, "<id>")} ${r.status}`);
    expect(calls.filter((c) => c === "POST /api/v1/runs 202")).toHaveLength(3);
    expect(calls.filter((c) => c === "PATCH /api/v1/runs/<id> 202")).toHaveLength(3);
    expect(agent.end_time).not.toBeNull();
  });

  it("readRun with loadChildRuns returns the tree the client sent", async () => {
    const ls = client();
    await runAgent(ls, "capital");
    const { agent, lookup, calculator } = expectTheTree();
    const read = await ls.readRun(agent.id, { loadChildRuns: true });
    expect(read).toMatchObject({ id: agent.id, name: "agent", run_type: "chain", trace_id: agent.id, status: "success", outputs: { answer: "2 hits, division by zero" } });
    expect(read.child_runs?.map((c) => [c.id, c.name, c.status])).toEqual([
      [lookup.id, "lookup", "success"],
      [calculator.id, "calculator", "error"],
    ]);
    expect(read.child_run_ids).toEqual([lookup.id, calculator.id]);
    const project = await ls.readProject({ projectName: "unit-tests" });
    expect(project).toMatchObject({ name: "unit-tests", id: read.session_id, run_count: 3 });
  });

  it("listRuns finds runs by trace, parent, name, run type, error and root", async () => {
    const ls = client();
    await runAgent(ls, "capital");
    await runAgent(ls, "river");
    const traces = t.mock.traces({ name: "agent" });
    expect(traces).toHaveLength(2);
    const [first, second] = traces as [(typeof traces)[0], (typeof traces)[0]];
    const names = async (props: Parameters<Client["listRuns"]>[0]) => {
      const out: string[] = [];
      for await (const run of ls.listRuns(props)) out.push(`${run.name}:${run.trace_id === first.id ? 1 : 2}`);
      return out.sort();
    };
    expect(await names({ projectName: "unit-tests", traceId: second.id })).toEqual(["agent:2", "calculator:2", "lookup:2"]);
    expect(await names({ projectName: "unit-tests", parentRunId: first.id })).toEqual(["calculator:1", "lookup:1"]);
    expect(await names({ projectName: "unit-tests", filter: 'eq(name, "lookup")' })).toEqual(["lookup:1", "lookup:2"]);
    expect(await names({ projectName: "unit-tests", runType: "tool" })).toEqual(["calculator:1", "calculator:2"]);
    expect(await names({ projectName: "unit-tests", error: true })).toEqual(["calculator:1", "calculator:2"]);
    expect(await names({ projectName: "unit-tests", isRoot: true })).toEqual(["agent:1", "agent:2"]);
    expect(await names({ projectName: "unit-tests", filter: 'and(eq(run_type, "tool"), eq(trace_id, "' + first.id.toUpperCase() + '"))' })).toEqual(["calculator:1"]);
  });

  it("waitFor.trace resolves when the run arrives", async () => {
    const ls = client();
    const waiting = t.mock.waitFor.trace({ name: "calculator", error: true });
    await runAgent(ls, "capital");
    const [found] = await waiting;
    expect(found).toMatchObject({ name: "calculator", run_type: "tool", status: "error" });
  });

  it("docs/tracing.md's example: assert on what the application traced, here and through RemoteMock", async () => {
    const ls = new Client({ apiUrl: `${t.mock.tracingUrl}/api/v1`, apiKey: "ls-key" });
    const search = traceable(async (q: string) => [`${q}: found`], { name: "search", run_type: "tool", client: ls, tracingEnabled: true });
    const agent = traceable(async (q: string) => ({ answer: (await search(q))[0] }), { name: "agent", client: ls, tracingEnabled: true });
    await agent("capital of France");
    await ls.awaitPendingTraceBatches();
    const [root, tool] = t.mock.traces();
    expect(root).toMatchObject({ name: "agent", outputs: { answer: "capital of France: found" }, session_name: "default" });
    expect(tool).toMatchObject({ name: "search", run_type: "tool", parent_run_id: root!.id, error: null });
    const remote = new RemoteMock(t.mock.url, t.mock.tracingUrl);
    expect(await remote.traces({ run_type: "tool" })).toEqual([tool]);
    expectNothingPrinted();
  });
});
