import { formatTimestamp } from "../core/clock.js";
import { setOwn } from "../core/json.js";
import { taskId } from "./checkpoints.js";
import type { DerivedEvent } from "./derived-events.js";

/**
 * The `checkpoints`, `tasks` and `debug` stream events of a run, as LangGraph's Pregel loop sends
 * them (langgraph `pregel/debug.py`: map_debug_checkpoint, map_debug_tasks, map_debug_task_results;
 * `pregel/_loop.py` `_emit`) and the Python Agent Server passes them on (`stream.py` astream_state:
 * `checkpoints` and `tasks` as LangGraph gives them, a `debug` checkpoint with `checkpoint` and
 * `parent_checkpoint` added). docs/scenarios.md "Derived stream modes".
 */

/** A checkpoint the run has saved, as its stream announces it. */
export interface PlayedCheckpoint {
  id: string;
  parentId: string | null;
  step: number;
  source: "input" | "loop";
  writes: unknown;
  values: Record<string, unknown>;
  /** When it was saved, on the mock's clock. */
  at: number;
}

/** What every checkpoint event of a run shares: its thread, its configurable and its checkpoint metadata. */
export interface CheckpointEventContext {
  threadId: string;
  /** The run's `config.configurable`. */
  configurable: Record<string, unknown>;
  /** The scalar run metadata every checkpoint's metadata holds (checkpoints.ts checkpointRunMetadata). */
  metadata: Record<string, unknown>;
}

/** Metadata keys LangGraph keeps out of a task's metadata (`EXCLUDED_METADATA_KEYS`). */
const EXCLUDED_METADATA_KEYS = new Set(["thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns"]);

/** A checkpoint's config as the loop streams it: the run's configurable without `__pregel_` keys, naming the checkpoint. */
function configOf(ctx: CheckpointEventContext, checkpointId: string): Record<string, unknown> {
  const configurable: Record<string, unknown> = {};
  for (const key of Object.keys(ctx.configurable)) if (!key.startsWith("__pregel_")) setOwn(configurable, key, ctx.configurable[key]);
  for (const [key, value] of Object.entries({ thread_id: ctx.threadId, checkpoint_ns: "", checkpoint_id: checkpointId })) setOwn(configurable, key, value);
  return { configurable };
}

/** langgraph_api's `runnable_config_to_checkpoint`. */
function checkpointOf(ctx: CheckpointEventContext, checkpointId: string | null) {
  return checkpointId === null ? null : { checkpoint_id: checkpointId, thread_id: ctx.threadId, checkpoint_ns: "" };
}

/** The metadata a saved checkpoint has (as checkpoints.ts saves it). */
export function checkpointMetadata(ctx: CheckpointEventContext, c: PlayedCheckpoint): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...ctx.metadata };
  for (const [key, value] of Object.entries({ source: c.source, step: c.step, parents: {}, writes: c.writes })) setOwn(metadata, key, value);
  return metadata;
}

/**
 * The events announcing a checkpoint, once the loop knows its tasks (`next`): `checkpoints`
 * `{config, parent_config, values, metadata, next, tasks}` and `debug` `{step, timestamp, type:
 * "checkpoint", payload}`, the payload with `checkpoint` and `parent_checkpoint`.
 */
export function checkpointEvents(ctx: CheckpointEventContext, c: PlayedCheckpoint, next: readonly string[], now: number): DerivedEvent[] {
  const payload = {
    config: configOf(ctx, c.id),
    parent_config: c.parentId === null ? null : configOf(ctx, c.parentId),
    values: c.values,
    metadata: checkpointMetadata(ctx, c),
    next: [...next],
    tasks: next.map((name) => ({ id: taskId(c.id, name), name, interrupts: [], state: null })),
  };
  const debug = { ...payload, checkpoint: checkpointOf(ctx, c.id), parent_checkpoint: checkpointOf(ctx, c.parentId) };
  return [
    { event: "checkpoints", data: payload, mode: "checkpoints" },
    { event: "debug", data: { step: c.step, timestamp: formatTimestamp(now), type: "checkpoint", payload: debug }, mode: "debug" },
  ];
}

/** A task starting (`map_debug_tasks`): `{id, name, input, triggers}` and the run's user metadata. */
export function taskStartEvents(ctx: CheckpointEventContext, id: string, node: string, input: unknown, step: number, now: number): DerivedEvent[] {
  const payload: Record<string, unknown> = { id, name: node, input, triggers: [`branch:to:${node}`] };
  const metadata: Record<string, unknown> = {};
  for (const key of Object.keys(ctx.metadata)) if (!EXCLUDED_METADATA_KEYS.has(key)) setOwn(metadata, key, ctx.metadata[key]);
  if (Object.keys(metadata).length) payload.metadata = metadata;
  return taskEvents(payload, "task", step, now);
}

/**
 * A task's result (`map_debug_task_results`): `{id, name, error, result, interrupts}`, `result` the
 * node's writes to the state's channels (`{}` for an interrupted or failed node), `error` the
 * exception a failed node raised, as the server's serde writes one (`{error, message}`).
 */
export function taskResultEvents(id: string, node: string, writes: unknown, interrupts: unknown[], step: number, now: number, error: { error: string; message: string } | null = null): DerivedEvent[] {
  const result = writes !== null && typeof writes === "object" && !Array.isArray(writes) ? writes : {};
  return taskEvents({ id, name: node, error, result, interrupts }, "task_result", step, now);
}

function taskEvents(payload: Record<string, unknown>, type: string, step: number, now: number): DerivedEvent[] {
  return [
    { event: "tasks", data: payload, mode: "tasks" },
    { event: "debug", data: { step, timestamp: formatTimestamp(now), type, payload }, mode: "debug" },
  ];
}
