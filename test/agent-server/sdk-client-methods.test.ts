import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-1";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { ReferenceDocument } from "../support/reference-document.js";
import { IDS } from "../support/ids.js";

// Every method of the SDK 2.x `Client` against the mock (and the 1.x line for the methods it shares).
// Each HTTP exchange the SDK makes is recorded by the fetch it is given (the SDK itself is not
// touched) and checked against the production server's document: the operation it reaches, its
// status and its JSON body. A method added to a later SDK fails the completeness check below.

const DOC = new ReferenceDocument("agent-server.openapi.json");
const quick: ScenarioInput = { name: "quick", priority: -1, match: { input: { q: { $exists: true } } }, events: [{ event: "values", data: { answer: "{{input.q}}" } }] };

interface Exchange {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: unknown;
}

/** The document's operation (`METHOD /template`) a request reached: the match with the fewest parameters. */
function operationOf(method: string, path: string): string | undefined {
  const candidates = Object.entries(DOC.doc.paths)
    .filter(([template, ops]) => method.toLowerCase() in ops && new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
    .sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return candidates[0] ? `${method} ${candidates[0][0]}` : undefined;
}

function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const contentType = res.headers.get("content-type") ?? "";
    const body = contentType.startsWith("application/json") ? await res.clone().json() : undefined;
    log.push({ method: (init?.method ?? "GET").toUpperCase(), path: url.pathname, status: res.status, contentType, body });
    return res;
  };
}

async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The public methods of each namespace of a client, as `namespace.method`. */
function methodsOf(client: object): string[] {
  return ["assistants", "threads", "runs", "crons", "store"].flatMap((ns) => {
    const proto = Object.getPrototypeOf((client as Record<string, object>)[ns]);
    return Object.getOwnPropertyNames(proto)
      .filter((m) => m !== "constructor" && typeof proto[m] === "function")
      .map((m) => `${ns}.${m}`);
  });
}

type AnyClient = InstanceType<typeof Client>;

/**
 * Where the production server's answers differ from what its own document declares, the server wins
 * (docs/decisions/agent-server.md, "Where the document and the server differ"). Each is named by the
 * text of the problem the document check reports; anything else the check finds fails the test.
 */
const SERVER_OVER_DOCUMENT: [RegExp, string][] = [
  [/^(POST \/threads|GET \/threads\/\{thread_id\}|PATCH \/threads\/\{thread_id\}|POST \/threads\/\{thread_id\}\/copy) → 200: \/values must be object$/, "a thread no run has touched has `values: null`"],
  [/^POST \/threads\/search → 200: \/\d+\/values must be object$/, "a thread no run has touched has `values: null`"],
  [/^(GET \/threads\/\{thread_id\}\/state|POST \/threads\/\{thread_id\}\/history) → 200: (\/\d+)?\/(parent_)?checkpoint\/checkpoint_map must be object$/, "`checkpoint_map: null`"],
  [/^POST \/threads\/\{thread_id\}\/runs\/\{run_id\}\/cancel → 202 is not a documented status/, "cancel answers 202"],
  [/^DELETE \/(threads\/\{thread_id\}|threads\/\{thread_id\}\/runs\/\{run_id\}|assistants\/\{assistant_id\}|runs\/crons\/\{cron_id\}) → 204 is not a documented status/, "deletes answer 204"],
  [/^POST \/assistants\/\{assistant_id\}\/versions → 200: \/\d+ must have required property 'updated_at'$/, "assistant versions have no `updated_at`"],
  [/^(GET \/threads\/\{thread_id\}\/state|POST \/threads\/\{thread_id\}\/history) → 200: (\/\d+)?\/tasks\/\d+\/(error|checkpoint|state) must be (string|object)$/, "a task's `error`, `checkpoint` and `state` are null"],
  [/^POST \/store\/namespaces → 200: \/ must be array$/, "`{\"namespaces\": [...]}`"],
  [/^(POST \/threads\/\{thread_id\}\/runs\/crons|POST \/runs\/crons|PATCH \/runs\/crons\/\{cron_id\}|POST \/runs\/crons\/search) → 200: (\/\d+)?\/(end_time|thread_id) must be string$/, "`thread_id: null` (stateless) and `end_time: null`"],
];

/**
 * One call per method, in an order that gives each the ids it needs. `patchState` (PATCH
 * /threads/{id}/state) is not an operation of the production server: it is expected to fail there
 * as it does here, with 405 (docs/decisions/agent-server.md).
 */
function calls(client: AnyClient): [string, () => Promise<unknown>][] {
  const ids: Record<string, string> = {};
  const graph = "agent";
  return [
    ["assistants.create", async () => (ids.assistant = (await client.assistants.create({ graphId: graph, name: "helper", config: { configurable: { tone: "dry" } }, metadata: { team: "qa" } })).assistant_id)],
    ["assistants.get", () => client.assistants.get(ids.assistant as string)],
    ["assistants.update", () => client.assistants.update(ids.assistant as string, { metadata: { team: "qa", v: 2 } })],
    ["assistants.getVersions", () => client.assistants.getVersions(ids.assistant as string)],
    ["assistants.setLatest", () => client.assistants.setLatest(ids.assistant as string, 1)],
    ["assistants.search", () => client.assistants.search({ graphId: graph, limit: 5 })],
    ["assistants.count", () => client.assistants.count({ graphId: graph })],
    ["assistants.getGraph", () => client.assistants.getGraph(ids.assistant as string)],
    ["assistants.getSchemas", () => client.assistants.getSchemas(ids.assistant as string)],
    ["assistants.getSubgraphs", () => client.assistants.getSubgraphs(ids.assistant as string, { recurse: true })],
    ["threads.create", async () => (ids.thread = (await client.threads.create({ metadata: { user: "u1" } })).thread_id)],
    ["threads.get", () => client.threads.get(ids.thread as string)],
    ["threads.update", () => client.threads.update(ids.thread as string, { metadata: { user: "u1", topic: "sdk" } })],
    ["threads.search", () => client.threads.search({ metadata: { user: "u1" }, limit: 5 })],
    ["threads.count", () => client.threads.count({ metadata: { user: "u1" } })],
    ["runs.wait", () => client.runs.wait(ids.thread as string, graph, { input: { q: "one" } })],
    ["runs.stream", () => drain(client.runs.stream(ids.thread as string, graph, { input: { q: "two" }, streamMode: ["values", "updates"] }))],
    ["runs.create", async () => (ids.run = (await client.runs.create(ids.thread as string, graph, { input: { q: "three" }, streamResumable: true })).run_id)],
    ["runs.joinStream", () => drain(client.runs.joinStream(ids.thread as string, ids.run as string))],
    ["runs.join", () => client.runs.join(ids.thread as string, ids.run as string)],
    ["runs.get", () => client.runs.get(ids.thread as string, ids.run as string)],
    ["runs.list", () => client.runs.list(ids.thread as string, { limit: 10 })],
    ["runs.createBatch", () => client.runs.createBatch([{ assistantId: graph, input: { q: "batch" } }])],
    ["runs.cancel", async () => {
      const slow = await client.runs.create(ids.thread as string, graph, { input: { q: "cancel me" }, afterSeconds: 600 });
      return client.runs.cancel(ids.thread as string, slow.run_id);
    }],
    ["runs.delete", async () => {
      const done = await client.runs.create(ids.thread as string, graph, { input: { q: "delete me" } });
      await client.runs.join(ids.thread as string, done.run_id);
      return client.runs.delete(ids.thread as string, done.run_id);
    }],
    ["threads.getState", () => client.threads.getState(ids.thread as string)],
    ["threads.getHistory", async () => (ids.checkpoint = ((await client.threads.getHistory(ids.thread as string, { limit: 3 }))[0]?.checkpoint.checkpoint_id ?? ""))],
    ["threads.updateState", () => client.threads.updateState(ids.thread as string, { values: { answer: "edited" }, asNode: "agent" })],
    ["threads.patchState", () => client.threads.patchState(ids.thread as string, { note: "x" })],
    ["threads.copy", async () => (ids.copy = (await client.threads.copy(ids.thread as string)).thread_id)],
    ["threads.joinStream", async () => {
      // The copy's runs, replayed from the start (`lastEventId: "-"`) up to the end of one.
      const run = await client.runs.create(ids.copy as string, graph, { input: { q: "joined" } });
      await client.runs.join(ids.copy as string, run.run_id);
      const parts: { event: string; data: unknown }[] = [];
      const abort = new AbortController();
      try {
        for await (const part of client.threads.joinStream(ids.copy as string, { signal: abort.signal, lastEventId: "-" })) {
          parts.push(part as { event: string; data: unknown });
          if ((part.data as { status?: string } | null)?.status === "run_done") abort.abort();
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
      }
      return parts;
    }],
    ["crons.createForThread", async () => (ids.cron = (await client.crons.createForThread(ids.thread as string, graph, { schedule: "*/5 * * * *", input: { q: "cron" } })).cron_id)],
    ["crons.create", async () => (ids.cron2 = (await client.crons.create(graph, { schedule: "0 9 * * *", input: { q: "daily" } })).cron_id)],
    ["crons.update", () => client.crons.update(ids.cron as string, { schedule: "*/10 * * * *" })],
    ["crons.search", () => client.crons.search({ assistantId: IDS.agentAssistant, limit: 10 })],
    ["crons.count", () => client.crons.count({ assistantId: IDS.agentAssistant })],
    ["crons.delete", () => client.crons.delete(ids.cron2 as string)],
    ["store.putItem", () => client.store.putItem(["users", "u1"], "prefs", { theme: "dark" })],
    ["store.getItem", () => client.store.getItem(["users", "u1"], "prefs")],
    ["store.searchItems", () => client.store.searchItems(["users"], { filter: { theme: "dark" } })],
    ["store.listNamespaces", () => client.store.listNamespaces({ prefix: ["users"] })],
    ["store.deleteItem", () => client.store.deleteItem(["users", "u1"], "prefs")],
    ["threads.delete", () => client.threads.delete(ids.copy as string)],
    ["assistants.delete", () => client.assistants.delete(ids.assistant as string)],
  ];
}

const SDKS: [string, (url: string, log: Exchange[]) => AnyClient][] = [
  ["@langchain/langgraph-sdk 2.0.0", (url, log) => new Client({ apiUrl: url, callerOptions: { fetch: recordingFetch(log), maxRetries: 0 } })],
  ["@langchain/langgraph-sdk 1.15 (langgraph-sdk-1)", (url, log) => new Client1({ apiUrl: url, callerOptions: { fetch: recordingFetch(log), maxRetries: 0 } }) as unknown as AnyClient],
];

it("each answer the document check lets pass is written down as a decision", () => {
  const decisions = readFileSync(new URL("../../docs/decisions/agent-server.md", import.meta.url), "utf8");
  const section = decisions.slice(decisions.indexOf("## Where the document and the server differ"));
  expect(section.length).toBeLessThan(decisions.length);
  for (const [, phrase] of SERVER_OVER_DOCUMENT) expect(section).toContain(phrase);
});

describe.each(SDKS)("every Client method of %s", (name, makeClient) => {
  let mock: MockServer;
  const log: Exchange[] = [];
  let client: AnyClient;

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 8, fixtures: false, scenarios: [BUNDLED_SCENARIOS, quick], clock: { autoAdvance: true } });
    client = makeClient(mock.url, log);
  });
  afterAll(async () => {
    await mock.close();
  });

  it("calls each one, and every answer is the documented operation's status and schema", async () => {
    const table = calls(client);
    const shared = methodsOf(client);
    // The table covers exactly the client's methods (the 1.x line has the same set or a subset).
    if (name.includes("2.0.0")) expect(table.map(([m]) => m).sort()).toEqual([...shared].sort());
    const results: Record<string, unknown> = {};
    const reached: Record<string, string[]> = {};
    for (const [method, call] of table) {
      if (!shared.includes(method)) continue;
      const from = log.length;
      if (method === "threads.patchState") {
        await expect(call()).rejects.toThrow(/405/);
      } else {
        results[method] = await call();
      }
      reached[method] = log.slice(from).map((x) => `${operationOf(x.method, x.path) ?? `${x.method} ${x.path} (not in the document)`} → ${x.status}`);
    }

    const problems = log.flatMap((x) => {
      const op = operationOf(x.method, x.path);
      if (x.method === "PATCH" && /^\/threads\/[^/]+\/state$/.test(x.path)) return x.status === 405 ? [] : [`PATCH ${x.path} → ${x.status}, expected 405`];
      if (!op) return [`${x.method} ${x.path} is no operation of the document`];
      if (x.status >= 300) return [`${op} → ${x.status}: ${JSON.stringify(x.body)}`];
      if (x.status === 202 || x.status === 204) return DOC.check(op, x.status, x.body);
      if (x.contentType.startsWith("text/event-stream")) return [];
      return DOC.check(op, x.status, x.body);
    });
    const unexplained = problems.filter((p) => !SERVER_OVER_DOCUMENT.some(([pattern]) => pattern.test(p)));
    expect(unexplained).toEqual([]);

    // Each method reached the operation it stands for.
    expect(reached["assistants.getGraph"]).toEqual(["GET /assistants/{assistant_id}/graph → 200"]);
    expect(reached["assistants.setLatest"]).toEqual(["POST /assistants/{assistant_id}/latest → 200"]);
    expect(reached["crons.createForThread"]).toEqual(["POST /threads/{thread_id}/runs/crons → 200"]);
    expect(reached["store.listNamespaces"]).toEqual(["POST /store/namespaces → 200"]);
    expect(reached["threads.copy"]).toEqual(["POST /threads/{thread_id}/copy → 200"]);
    expect(reached["runs.createBatch"]).toEqual(["POST /runs/batch → 200"]);

    // And answered with what was asked for.
    expect(results["runs.wait"]).toEqual({ answer: "one" });
    expect(results["runs.stream"]).toEqual([
      { event: "metadata", data: expect.objectContaining({ run_id: expect.any(String) }) },
      { event: "values", data: { answer: "two" } },
    ]);
    expect(results["runs.join"]).toEqual({ answer: "three" });
    expect(results["threads.joinStream"]).toEqual([
      { event: "metadata", data: { run_id: expect.any(String), attempt: 1 } },
      { event: "values", data: { answer: "joined" } },
      { event: "metadata", data: { status: "run_done", run_id: expect.any(String) } },
    ]);
    expect(results["store.getItem"]).toMatchObject({ namespace: ["users", "u1"], key: "prefs", value: { theme: "dark" } });
    expect(results["assistants.count"]).toBeGreaterThanOrEqual(2);
    expect(results["crons.count"]).toBe(2);
    // The last run to finish on the thread was the one runs.delete removed afterwards: its state stays.
    expect((results["threads.getState"] as { values: unknown }).values).toEqual({ answer: "delete me" });
  });
});
