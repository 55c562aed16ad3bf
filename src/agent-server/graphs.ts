import type { FixtureSet } from "../store/fixtures.js";
import { DEFAULT_CHANNELS, type Channels } from "./reducers.js";
import type { GraphFixture, GraphFixtureEdge, GraphFixtureNode, GraphFixtureSubgraph } from "../schemas/types.gen.js";

export const GRAPH_FIXTURE_REF = "fixtures/graph.json#/$defs/GraphFixture";

/** A graph (or subgraph) as the fixtures describe it, or the generic one. */
type Description = GraphFixtureSubgraph & Pick<GraphFixture, "channels">;

interface DrawnNode {
  id: string;
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}
interface DrawnEdge {
  source: string;
  target: string;
  conditional?: boolean;
  data?: string;
}

const START = "__start__";
const END = "__end__";

/** Messages state, as `MessagesState` graphs (the bundled scenarios' shape) report it. */
const MESSAGES_STATE = {
  title: "State",
  type: "object",
  properties: { messages: { title: "Messages", type: "array", items: { type: "object" } } },
};
const EMPTY_CONTEXT = { title: "Context", type: "object", properties: {} };

/**
 * A graph no fixture describes: one `agent` node between start and end, with a messages state. The
 * scenarios say what a graph streams, not its shape (docs/decisions/agent-server.md, "Graphs").
 */
function generic(): Description {
  return {
    nodes: [{ id: START }, { id: "agent" }, { id: END }],
    edges: [
      { source: START, target: "agent" },
      { source: "agent", target: END },
    ],
    input_schema: MESSAGES_STATE,
    output_schema: MESSAGES_STATE,
    state_schema: MESSAGES_STATE,
    config_schema: EMPTY_CONTEXT,
    context_schema: EMPTY_CONTEXT,
  };
}

/**
 * What the agent server knows of its graphs' shapes: the `graphs` fixture section, read at seeding.
 * It answers the assistant graph routes: the drawable graph (`xray` expands subgraphs), the schemas
 * and the subgraphs' schemas by namespace.
 */
export class GraphCatalog {
  private readonly described = new Map<string, Description>();

  /** The seed step: reads and checks the `graphs` fixture section. */
  seed(fixtures: FixtureSet): void {
    for (const entry of fixtures.entries("graphs")) {
      if (!fixtures.check(entry, GRAPH_FIXTURE_REF, entry.value)) continue;
      const graph = entry.value as unknown as GraphFixture;
      if (this.described.has(graph.graph_id)) {
        fixtures.problem(entry, `duplicate graph_id ${JSON.stringify(graph.graph_id)}`, "/graph_id");
        continue;
      }
      const problem = edgeProblem(graph);
      if (problem) {
        fixtures.problem(entry, problem.reason, problem.pointer);
        continue;
      }
      const { graph_id: _id, ...description } = graph;
      this.described.set(graph.graph_id, description);
    }
  }

  /** Graph ids the fixtures describe (they are graphs of the server even with no scenario). */
  ids(): string[] {
    return [...this.described.keys()];
  }

  private describe(graphId: string): Description {
    return this.described.get(graphId) ?? generic();
  }

  /**
   * `Graph.to_json()` of the graph: nodes and edges; with `xray` (true, or a depth ≥ 1) each subgraph
   * node is replaced by the subgraph's own nodes, named `<namespace>:<node>`, to that depth.
   */
  drawable(graphId: string, xray: boolean | number): { nodes: DrawnNode[]; edges: DrawnEdge[] } {
    const depth = xray === true ? Number.POSITIVE_INFINITY : xray === false ? 0 : xray;
    return draw(this.describe(graphId), depth, "");
  }

  /** The reducers of the graph's state channels (reducers.ts): the fixture's `channels`, else MessagesState's. */
  channels(graphId: string): Channels {
    return this.described.get(graphId)?.channels ?? DEFAULT_CHANNELS;
  }

  /** The GraphSchema of the graph. */
  schemas(graphId: string): Record<string, unknown> {
    return { graph_id: graphId, ...schemasOf(this.describe(graphId)) };
  }

  /**
   * The subgraphs' schemas by namespace (`Pregel.aget_subgraphs`): the direct ones, or only `namespace`;
   * with `recurse`, nested ones too, named `<parent>|<child>`.
   */
  subgraphs(graphId: string, namespace: string | undefined, recurse: boolean): Record<string, Record<string, unknown>> {
    const out: Record<string, Record<string, unknown>> = {};
    for (const [name, sub] of walkSubgraphs(this.describe(graphId), namespace, recurse)) {
      Object.defineProperty(out, name, { value: schemasOf(sub), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}

/**
 * LangGraph's `Pregel.get_subgraphs(namespace, recurse)` (`langgraph/pregel/main.py`), step for step:
 * a namespace that names a subgraph yields that one alone; without one, the direct subgraphs and,
 * with `recurse`, theirs as `<parent>|<child>`; a nested namespace is followed down only with `recurse`.
 */
function* walkSubgraphs(d: Description, namespace: string | undefined, recurse: boolean): Generator<[string, Description]> {
  let ns = namespace;
  for (const [name, sub] of Object.entries(d.subgraphs ?? {}) as [string, Description][]) {
    if (ns !== undefined && !ns.startsWith(name)) continue;
    if (name === ns) {
      yield [name, sub];
      return;
    }
    if (ns === undefined) yield [name, sub];
    if (recurse) {
      // As there, the namespace left to find is cut to the part below this subgraph.
      if (ns !== undefined) ns = ns.slice(name.length + 1);
      for (const [inner, s] of walkSubgraphs(sub, ns, recurse)) yield [`${name}|${inner}`, s];
    }
  }
}

function schemasOf(d: Description): Record<string, unknown> {
  return {
    input_schema: d.input_schema ?? null,
    output_schema: d.output_schema ?? null,
    state_schema: d.state_schema ?? null,
    config_schema: d.config_schema ?? null,
    context_schema: d.context_schema ?? null,
  };
}

function drawNode(n: GraphFixtureNode, prefix: string): DrawnNode {
  const id = prefix + n.id;
  const schemaNode = n.id === START || n.id === END;
  const node: DrawnNode = { id, type: n.type ?? (schemaNode ? "schema" : "runnable"), data: n.data ?? (schemaNode ? id : { name: n.id }) };
  if (n.metadata) node.metadata = n.metadata;
  return node;
}

function drawEdge(e: GraphFixtureEdge, prefix: string): DrawnEdge {
  const edge: DrawnEdge = { source: prefix + e.source, target: prefix + e.target };
  if (e.conditional) edge.conditional = true;
  if (e.data !== undefined) edge.data = e.data;
  return edge;
}

/** Draws a graph; a subgraph node within `depth` becomes its own drawing, its __start__/__end__ trimmed and the parent's edges wired to its first and last nodes. */
function draw(d: Description, depth: number, prefix: string): { nodes: DrawnNode[]; edges: DrawnEdge[] } {
  const fallback = generic();
  const nodes: DrawnNode[] = [];
  let edges: DrawnEdge[] = (d.edges ?? fallback.edges ?? []).map((e) => drawEdge(e, prefix));
  for (const n of d.nodes ?? fallback.nodes ?? []) {
    const sub = depth > 0 ? d.subgraphs?.[n.id] : undefined;
    if (!sub) {
      nodes.push(drawNode(n, prefix));
      continue;
    }
    const inner = draw(sub, depth - 1, `${prefix}${n.id}:`);
    const first = soleEnd(inner, "first");
    const last = soleEnd(inner, "last");
    // LangGraph's draw_graph leaves a subgraph node as it is unless the subgraph has one first and one last node.
    if (inner.nodes.length < 2 || !first || !last) {
      nodes.push(drawNode(n, prefix));
      continue;
    }
    const wired = trimEnds(inner);
    nodes.push(...wired.nodes);
    const id = prefix + n.id;
    edges = edges.map((e) => ({ ...e, source: e.source === id ? wired.last : e.source, target: e.target === id ? wired.first : e.target }));
    edges.push(...wired.edges);
  }
  return { nodes, edges };
}

type Drawing = { nodes: DrawnNode[]; edges: DrawnEdge[] };

/** langchain_core's `_first_node`/`_last_node`: the one node nothing (but `exclude`) leads into, or out of. */
function soleEnd(g: Drawing, which: "first" | "last", exclude?: string): DrawnNode | undefined {
  const linked = new Set(
    which === "first" ? g.edges.filter((e) => e.source !== exclude).map((e) => e.target) : g.edges.filter((e) => e.target !== exclude).map((e) => e.source),
  );
  const found = g.nodes.filter((n) => n.id !== exclude && !linked.has(n.id));
  return found.length === 1 ? found[0] : undefined;
}

/**
 * `Graph.trim_first_node()` and `trim_last_node()` as LangGraph's draw_graph calls them before it
 * puts a subgraph in place of its node: the subgraph's `__start__` goes when one edge leaves it and
 * another node would be first, its `__end__` when one edge enters it and another node would be last.
 * Answers the drawing and the ids the parent's edges are wired to.
 */
function trimEnds(g: Drawing): Drawing & { first: string; last: string } {
  let out = g;
  const drop = (id: string) => ({ nodes: out.nodes.filter((x) => x.id !== id), edges: out.edges.filter((e) => e.source !== id && e.target !== id) });
  const first = soleEnd(out, "first");
  if (first && soleEnd(out, "first", first.id) && out.edges.filter((e) => e.source === first.id).length === 1) out = drop(first.id);
  const last = soleEnd(out, "last");
  if (last && soleEnd(out, "last", last.id) && out.edges.filter((e) => e.target === last.id).length === 1) out = drop(last.id);
  return { ...out, first: (soleEnd(out, "first") as DrawnNode).id, last: (soleEnd(out, "last") as DrawnNode).id };
}

/** An edge naming a node the graph does not have. */
function edgeProblem(graph: GraphFixture): { pointer: string; reason: string } | undefined {
  if (!graph.nodes || !graph.edges) return undefined;
  const ids = new Set(graph.nodes.map((n) => n.id));
  for (const [i, e] of graph.edges.entries()) {
    for (const end of ["source", "target"] as const) {
      if (!ids.has(e[end])) return { pointer: `/edges/${i}/${end}`, reason: `names no node of the graph (${[...ids].join(", ")})` };
    }
  }
  return undefined;
}
