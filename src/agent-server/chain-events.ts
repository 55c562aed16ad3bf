import { setOwn } from "../core/json.js";
import { uuid5, uuidBytes } from "../core/random.js";
import type { DerivedEvent } from "./derived-events.js";

/**
 * The `events` stream mode: LangChain's `astream_events` v2 objects `{event, data, name, tags,
 * run_id, metadata, parent_ids}` as the Python Agent Server passes them on (`stream.py`
 * astream_state: every event but the graph's own `on_chain_stream`, and none tagged
 * `langsmith:hidden`, which leaves out `__start__` and the channel writers). The graph is the root
 * chain (`LangGraph`, the run's id), each node a chain under it. docs/scenarios.md "Derived stream modes".
 */

/** The graph's name in `events`: a compiled StateGraph's default. */
const GRAPH_NAME = "LangGraph";

/** Run ids of the node chains: fixed by their task. */
const NODE_RUN_NAMESPACE = uuidBytes("5d2e8f1a-7c3b-4a6e-9f0d-2b1c4e5a6f7d");

function chainEvent(event: string, data: Record<string, unknown>, name: string, tags: string[], runId: string, metadata: Record<string, unknown>, parentIds: string[]): DerivedEvent {
  return { event: "events", data: { event, data, name, tags, run_id: runId, metadata, parent_ids: parentIds }, mode: "events" };
}

/** The graph starting, with the run's input. */
export function graphStart(runId: string, input: unknown, metadata: Record<string, unknown>): DerivedEvent {
  return chainEvent("on_chain_start", { input }, GRAPH_NAME, [], runId, metadata, []);
}

/** The graph's end, with the state it leaves. */
export function graphEnd(runId: string, output: unknown, metadata: Record<string, unknown>): DerivedEvent {
  return chainEvent("on_chain_end", { output }, GRAPH_NAME, [], runId, metadata, []);
}

/** A node's chain starting, with the state it reads; its run id is fixed by its task. */
export function nodeStart(runId: string, task: string, node: string, step: number, metadata: Record<string, unknown>, input: unknown): DerivedEvent {
  return chainEvent("on_chain_start", { input }, node, [`graph:step:${step}`], uuid5(task, NODE_RUN_NAMESPACE), metadata, [runId]);
}

/** A node's chain finishing: its output streamed, then its end with output and input. */
export function nodeFinish(runId: string, task: string, node: string, step: number, metadata: Record<string, unknown>, input: unknown, output: unknown): DerivedEvent[] {
  const id = uuid5(task, NODE_RUN_NAMESPACE);
  const tags = [`graph:step:${step}`];
  const end: Record<string, unknown> = {};
  setOwn(end, "output", output);
  setOwn(end, "input", input);
  return [chainEvent("on_chain_stream", { chunk: output }, node, tags, id, metadata, [runId]), chainEvent("on_chain_end", end, node, tags, id, metadata, [runId])];
}
