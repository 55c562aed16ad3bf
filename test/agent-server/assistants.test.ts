import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { Client } from "@langchain/langgraph-sdk";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";
import { LoadError } from "../../src/core/load-error.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { appForFile } from "../support/app-presets.js";
import { IDS } from "../support/ids.js";
import { newThread } from "../support/agent-server.js";

const T0 = "2026-01-15T09:00:00.000000+00:00";
const echoConfig: ScenarioInput = {
  name: "echo-config",
  match: { assistant_id: "agent" },
  events: [{ event: "values", data: { model: "{{config.configurable.model}}" } }],
};
// The bundled fixtures describe graph "agent" (fixtures/graphs.json); no control-plane data is needed.
const app = appForFile({ seed: 4, publicUrl: "http://mock.test", fixtures: ["fixtures/graphs.json"], scenarios: [echoConfig] });

describe("assistants over HTTP", () => {
  it("every known graph has its default assistant; create, get, patch (a new version), versions, set latest, delete", async () => {
    const def = (await request(app).get(`/assistants/${IDS.agentAssistant}`).expect(200)).body;
    expect(def).toEqual({ assistant_id: IDS.agentAssistant, graph_id: "agent", config: {}, context: {}, created_at: T0, updated_at: T0, metadata: { created_by: "system" }, version: 1, name: "agent", description: null });

    const created = (await request(app).post("/assistants").send({ graph_id: "agent", config: { configurable: { model: "gpt-x" } }, metadata: { team: "qa" } }).expect(200)).body;
    expect(created).toMatchObject({ graph_id: "agent", name: "Untitled", version: 1, description: null, metadata: { team: "qa" }, config: { configurable: { model: "gpt-x" } }, context: { model: "gpt-x" } });
    const id = created.assistant_id as string;
    expect((await request(app).get(`/assistants/${id}`).expect(200)).body).toEqual(created);

    mockOf(app).clock.advance("1m");
    const patched = (await request(app).patch(`/assistants/${id}`).send({ name: "Helper", metadata: { v: 2 } }).expect(200)).body;
    expect(patched).toMatchObject({ name: "Helper", version: 2, metadata: { team: "qa", v: 2 }, created_at: created.created_at, updated_at: "2026-01-15T09:01:00.000000+00:00" });

    const versions = (await request(app).post(`/assistants/${id}/versions`).send({}).expect(200)).body;
    expect(versions.map((v: { version: number; name: string }) => [v.version, v.name])).toEqual([[2, "Helper"], [1, "Untitled"]]);
    expect(Object.keys(versions[0]).sort()).toEqual(["assistant_id", "config", "context", "created_at", "description", "graph_id", "metadata", "name", "version"]);
    expect((await request(app).post(`/assistants/${id}/versions`).send({ metadata: { v: 2 } }).expect(200)).body).toHaveLength(1);

    const back = (await request(app).post(`/assistants/${id}/latest`).send({ version: 1 }).expect(200)).body;
    expect(back).toMatchObject({ version: 1, name: "Untitled", metadata: { team: "qa" } });
    await request(app).post(`/assistants/${id}/latest`).send({ version: 9 }).expect(404, { detail: "Not Found" });

    const del = await request(app).delete(`/assistants/${id}`).expect(204);
    expect(del.text).toBe("");
    await request(app).get(`/assistants/${id}`).expect(404, { detail: "Not Found" });
    await request(app).post(`/assistants/${id}/versions`).send({}).expect(404, { detail: `Assistant ${id} not found` });
  });

  it("create: if_exists, an unknown graph, configurable and context together; ids are validated", async () => {
    const id = "5a0f2a3c-0b1d-4e5f-8a9b-1c2d3e4f5a6b";
    const first = (await request(app).post("/assistants").send({ assistant_id: id, graph_id: "agent", name: "One" }).expect(200)).body;
    await request(app).post("/assistants").send({ assistant_id: id, graph_id: "agent" }).expect(409, { detail: "Conflict" });
    expect((await request(app).post("/assistants").send({ assistant_id: id, graph_id: "agent", if_exists: "do_nothing", name: "Two" }).expect(200)).body).toEqual(first);
    await request(app).post("/assistants").send({ graph_id: "nope" }).expect(404, { detail: "Graph 'nope' not found. Expected one of: ['agent']" });
    const both = await request(app).post("/assistants").send({ graph_id: "agent", config: { configurable: { a: 1 } }, context: { b: 2 } }).expect(400);
    expect(both.body.detail).toMatch(/^Cannot specify both configurable and context/);
    const fromContext = (await request(app).post("/assistants").send({ graph_id: "agent", context: { tone: "dry" } }).expect(200)).body;
    expect(fromContext).toMatchObject({ context: { tone: "dry" }, config: { configurable: { tone: "dry" } } });
    await request(app).post("/assistants").send({}).expect(422);
    await request(app).get("/assistants/not-a-uuid").expect(422);
  });

  it("search filters, sorts, selects and pages with X-Pagination headers; count filters the same way", async () => {
    for (const [name, team] of [["Beta", "a"], ["alpha", "a"], ["Gamma", "b"]]) {
      mockOf(app).clock.advance("1s");
      await request(app).post("/assistants").send({ graph_id: "agent", name, metadata: { team } }).expect(200);
    }
    const byName = await request(app).post("/assistants/search").send({ sort_by: "name", sort_order: "asc", select: ["name"], limit: 2 }).expect(200);
    expect(byName.body).toEqual([{ name: "agent" }, { name: "alpha" }]);
    // As the real server's get_pagination_headers: one past this page while there is a next one.
    expect(byName.headers["x-pagination-total"]).toBe("3");
    expect(byName.headers["x-pagination-next"]).toBe("2");
    const newest = (await request(app).post("/assistants/search").send({ metadata: { team: "a" } }).expect(200)).body;
    expect(newest.map((a: { name: string }) => a.name)).toEqual(["alpha", "Beta"]);
    expect((await request(app).post("/assistants/search").send({ name: "AMM" }).expect(200)).body.map((a: { name: string }) => a.name)).toEqual(["Gamma"]);
    expect((await request(app).post("/assistants/count").send({ metadata: { team: "a" } }).expect(200)).body).toBe(2);
    expect((await request(app).post("/assistants/count").send({}).expect(200)).body).toBe(4);
  });

  it("a run with a created assistant runs with its config and context under the request's, and records its id", async () => {
    const assistant = (await request(app).post("/assistants").send({ graph_id: "agent", context: { tone: "dry", model: "small" } }).expect(200)).body;
    const tid = await newThread(app);
    const res = await request(app).post(`/threads/${tid}/runs/wait`).send({ assistant_id: assistant.assistant_id, input: {}, config: { configurable: { model: "large" } } }).expect(200);
    expect(res.body).toEqual({ model: "large" });
    const [run] = (await request(app).get(`/threads/${tid}/runs`).expect(200)).body;
    expect(run.assistant_id).toBe(assistant.assistant_id);
    expect(run.kwargs.config.configurable).toMatchObject({ tone: "dry", model: "large", assistant_id: assistant.assistant_id, graph_id: "agent" });
    expect(run.kwargs.context).toMatchObject({ tone: "dry", model: "large" });

    await request(app).delete(`/assistants/${assistant.assistant_id}`).expect(204);
    await request(app).post(`/threads/${tid}/runs/wait`).send({ assistant_id: assistant.assistant_id, input: {} }).expect(404, { detail: "Thread or assistant not found." });
  });

  it("delete with delete_threads also deletes the threads whose metadata names the assistant, with their runs and checkpoints", async () => {
    const kept = (await request(app).post("/assistants").send({ graph_id: "agent" }).expect(200)).body.assistant_id as string;
    const gone = (await request(app).post("/assistants").send({ graph_id: "agent" }).expect(200)).body.assistant_id as string;
    const [onKept, onGone, onDefault, idle] = [await newThread(app), await newThread(app), await newThread(app), await newThread(app)];
    // echo-config answers the model the run is configured with.
    const run = { input: {}, config: { configurable: { model: "m" } } };
    await request(app).post(`/threads/${onKept}/runs/wait`).send({ assistant_id: kept, ...run }).expect(200);
    await request(app).post(`/threads/${onGone}/runs/wait`).send({ assistant_id: gone, ...run }).expect(200);
    await request(app).post(`/threads/${onDefault}/runs/wait`).send({ assistant_id: "agent", ...run }).expect(200);
    const [goneRun] = (await request(app).get(`/threads/${onGone}/runs`).expect(200)).body;

    // Without the flag the threads stay.
    await request(app).delete(`/assistants/${kept}`).expect(204);
    await request(app).get(`/threads/${onKept}`).expect(200);

    await request(app).delete(`/assistants/${gone}?delete_threads=true`).expect(204);
    await request(app).get(`/threads/${onGone}`).expect(404, { detail: "Not Found" });
    await request(app).get(`/threads/${onGone}/runs/${goneRun.run_id}`).expect(404);
    expect((await request(app).get(`/threads/${onGone}/history`).expect(404)).body).toEqual({ detail: "Not Found" });
    for (const tid of [onKept, onDefault, idle]) await request(app).get(`/threads/${tid}`).expect(200);
  });

  it("graph (xray), schemas and subgraphs come from the graphs fixture; the graph route takes a graph name too", async () => {
    const graph = (await request(app).get("/assistants/agent/graph").expect(200)).body;
    expect(graph.nodes.map((n: { id: string }) => n.id)).toContain("researcher");
    expect(graph.nodes[0]).toEqual({ id: "__start__", type: "schema", data: "__start__" });
    expect(graph.nodes[1]).toEqual({ id: "agent", type: "runnable", data: { name: "agent" } });
    expect(graph.edges).toContainEqual({ source: "researcher", target: "supervisor" });

    const xray = (await request(app).get(`/assistants/${IDS.agentAssistant}/graph`).query({ xray: "1" }).expect(200)).body;
    const ids = xray.nodes.map((n: { id: string }) => n.id);
    expect(ids).not.toContain("researcher");
    expect(ids).toEqual(expect.arrayContaining(["researcher:search", "researcher:summarize"]));
    // As LangGraph's draw_graph: the subgraph's __start__ and __end__ are trimmed and the parent's edges
    // wired to its first and last nodes.
    expect(ids).not.toContain("researcher:__start__");
    expect(ids).not.toContain("researcher:__end__");
    expect(xray.edges).toContainEqual({ source: "supervisor", target: "researcher:search", conditional: true });
    expect(xray.edges).toContainEqual({ source: "researcher:search", target: "researcher:summarize" });
    expect(xray.edges).toContainEqual({ source: "researcher:summarize", target: "supervisor" });
    await request(app).get(`/assistants/${IDS.agentAssistant}/graph`).query({ xray: "0" }).expect(422, { detail: "Invalid xray value" });

    const schemas = (await request(app).get(`/assistants/${IDS.agentAssistant}/schemas`).expect(200)).body;
    expect(schemas.graph_id).toBe("agent");
    expect(Object.keys(schemas.state_schema.properties)).toEqual(["messages", "next", "digest"]);
    const subgraphs = (await request(app).get(`/assistants/${IDS.agentAssistant}/subgraphs`).expect(200)).body;
    expect(Object.keys(subgraphs)).toEqual(["researcher"]);
    expect(subgraphs.researcher.state_schema.title).toBe("ResearchState");
    expect((await request(app).get(`/assistants/${IDS.agentAssistant}/subgraphs/nothing`).expect(200)).body).toEqual({});
  });

  it("xray keeps a subgraph's __start__ or __end__ where LangGraph cannot trim it, and leaves a one-node subgraph undrawn", async () => {
    const branching = createApp({
      seed: 1,
      fixtures: [
        {
          graphs: [
            {
              graph_id: "g",
              nodes: [{ id: "__start__" }, { id: "route" }, { id: "solo" }, { id: "__end__" }],
              edges: [{ source: "__start__", target: "route" }, { source: "route", target: "solo" }, { source: "solo", target: "__end__" }],
              subgraphs: {
                // Two nodes lead to __end__: it stays, and the parent's edge leaves from it.
                route: {
                  nodes: [{ id: "__start__" }, { id: "a" }, { id: "b" }, { id: "__end__" }],
                  edges: [{ source: "__start__", target: "a" }, { source: "a", target: "b", conditional: true }, { source: "a", target: "__end__", conditional: true }, { source: "b", target: "__end__" }],
                },
                solo: { nodes: [{ id: "only" }] },
              },
            },
          ],
        },
      ],
      scenarios: [{ name: "g", graph_id: "g", events: [] }],
    });
    const drawn = (await request(branching).get("/assistants/g/graph?xray=true").expect(200)).body;
    expect(drawn.nodes.map((n: { id: string }) => n.id)).toEqual(["__start__", "route:a", "route:b", "route:__end__", "solo", "__end__"]);
    expect(drawn.edges).toContainEqual({ source: "__start__", target: "route:a" });
    expect(drawn.edges).toContainEqual({ source: "route:__end__", target: "solo" });
  });

  it("subgraphs by namespace walk as LangGraph's get_subgraphs: a named one alone, a nested one only with recurse", async () => {
    const nested = createApp({
      seed: 1,
      fixtures: [{ graphs: [{ graph_id: "n", subgraphs: { outer: { subgraphs: { inner: { subgraphs: { deepest: {} } } } }, other: {} } }] }],
      scenarios: [{ name: "n", graph_id: "n", events: [] }],
    });
    const id = (await request(nested).post("/assistants/search").send({ graph_id: "n" }).expect(200)).body[0].assistant_id;
    const names = async (path: string) => Object.keys((await request(nested).get(`/assistants/${id}/subgraphs${path}`).expect(200)).body);
    expect(await names("")).toEqual(["outer", "other"]);
    expect(await names("?recurse=true")).toEqual(["outer", "outer|inner", "outer|inner|deepest", "other"]);
    expect(await names("/outer?recurse=true")).toEqual(["outer"]);
    expect(await names(`/${encodeURIComponent("outer|inner")}`)).toEqual([]);
    expect(await names(`/${encodeURIComponent("outer|inner")}?recurse=true`)).toEqual(["outer|inner"]);
    expect(await names(`/${encodeURIComponent("outer|inner|deepest")}?recurse=true`)).toEqual(["outer|inner|deepest"]);
  });

  it("a graph no fixture describes gets the generic one; a default assistant deleted stays deleted until reset", async () => {
    const bare = createApp({ seed: 1, fixtures: false, scenarios: [{ name: "other", graph_id: "other", events: [] }] });
    const search = (await request(bare).post("/assistants/search").send({}).expect(200)).body;
    // `agent` is always served (the default graph), and each graph a scenario names.
    expect(search.map((a: { graph_id: string }) => a.graph_id).sort()).toEqual(["agent", "other"]);
    const id = search.find((a: { graph_id: string }) => a.graph_id === "other").assistant_id;
    const graph = (await request(bare).get(`/assistants/${id}/graph`).expect(200)).body;
    expect(graph.nodes.map((n: { id: string }) => n.id)).toEqual(["__start__", "agent", "__end__"]);
    await request(bare).delete(`/assistants/${id}`).expect(204);
    await request(bare).post("/runs/wait").send({ assistant_id: "other", input: {} }).expect(404);
    mockOf(bare).reset();
    await request(bare).get(`/assistants/${id}`).expect(200);
  });

  it("a graphs fixture with an edge to no node is refused with file, pointer and reason", () => {
    const bad = { graphs: [{ graph_id: "g", nodes: [{ id: "__start__" }], edges: [{ source: "__start__", target: "ghost" }] }] };
    let error: unknown;
    try {
      createApp({ fixtures: [bad as never] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LoadError);
    expect((error as LoadError).problems).toEqual([expect.objectContaining({ pointer: "/graphs/0/edges/0/target", reason: expect.stringContaining("names no node of the graph") })]);
  });
});

describe("assistants through SDK 2.x client.assistants", () => {
  let mock: MockServer;
  let client: Client;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 4, fixtures: ["fixtures/graphs.json"], scenarios: [echoConfig] });
    client = new Client({ apiUrl: mock.url });
  });
  afterAll(async () => {
    await mock.close();
  });

  it("create, get, update, getVersions, setLatest, search, count, getGraph, getSchemas, getSubgraphs, delete", async () => {
    const a = await client.assistants.create({ graphId: "agent", name: "sdk", metadata: { by: "sdk" } });
    expect((await client.assistants.get(a.assistant_id)).name).toBe("sdk");
    expect((await client.assistants.update(a.assistant_id, { name: "sdk2" })).version).toBe(2);
    expect((await client.assistants.getVersions(a.assistant_id)).map((v) => v.version)).toEqual([2, 1]);
    expect((await client.assistants.setLatest(a.assistant_id, 1)).name).toBe("sdk");
    expect((await client.assistants.search({ metadata: { by: "sdk" } })).map((x) => x.assistant_id)).toEqual([a.assistant_id]);
    expect(await client.assistants.count({ graphId: "agent" })).toBe(2);
    expect((await client.assistants.getGraph(a.assistant_id, { xray: true })).nodes.length).toBeGreaterThan(5);
    expect((await client.assistants.getSchemas(a.assistant_id)).graph_id).toBe("agent");
    expect(Object.keys(await client.assistants.getSubgraphs(a.assistant_id, { namespace: "researcher", recurse: true }))).toEqual(["researcher"]);
    await client.assistants.delete(a.assistant_id);
    await expect(client.assistants.get(a.assistant_id)).rejects.toThrow(/404/);
  });
});
