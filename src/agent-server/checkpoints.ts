import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { isPlainObject, omit, setOwn } from "../core/json.js";
import type { Interrupt } from "./threads.js";

/**
 * One saved state of a thread: what a run left behind. The mock keeps one per run that changed the
 * thread's state (docs/decisions/agent-server.md), where the real server keeps one per superstep.
 */
export interface CheckpointRecord {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  created_at: number;
  values: Record<string, unknown>;
  /** Nodes the thread would run next (the interrupted node while interrupted). */
  next: string[];
  /** `{task_id: [interrupt]}` of the pending tasks. */
  interrupts: Record<string, Interrupt[]>;
  metadata: Record<string, unknown>;
}

/** What a run saves: the state it left and who it was. */
export interface CheckpointInput {
  values: Record<string, unknown> | null;
  next: string[];
  interrupts: Record<string, Interrupt[]>;
  run: { run_id: string; thread_id: string; graph_id: string; assistant_id: string; metadata: Record<string, unknown> };
}

/** Each thread's checkpoints, oldest first, keyed by thread id (arrays are replaced, never pushed to). */
function checkpointCollection(ctx: MockContext) {
  return ctx.store.collection<readonly CheckpointRecord[]>("thread_checkpoints", "store");
}

/** A thread's checkpoints, newest first. */
export function checkpointsOf(ctx: MockContext, threadId: string): CheckpointRecord[] {
  return [...(checkpointCollection(ctx).get(threadId) ?? [])].reverse();
}

/** The thread's newest checkpoint, if a run saved one. */
export function latestCheckpoint(ctx: MockContext, threadId: string): CheckpointRecord | undefined {
  return checkpointCollection(ctx).get(threadId)?.at(-1);
}

export function deleteCheckpoints(ctx: MockContext, threadId: string): void {
  checkpointCollection(ctx).delete(threadId);
}

/**
 * Saves a new checkpoint after the thread's newest one. Its metadata is the run's metadata with the
 * keys the real server's loop writes on top (`source`, `step`, `parents`, and the run's identity).
 */
export function saveCheckpoint(ctx: MockContext, input: CheckpointInput): CheckpointRecord {
  const checkpoints = checkpointCollection(ctx);
  const previous = checkpoints.get(input.run.thread_id) ?? [];
  const now = ctx.clock.now();
  const metadata = omit(isPlainObject(input.run.metadata) ? input.run.metadata : {}, []);
  const system: Record<string, unknown> = {
    source: "loop",
    step: previous.length + 1,
    parents: {},
    run_id: input.run.run_id,
    thread_id: input.run.thread_id,
    graph_id: input.run.graph_id,
    assistant_id: input.run.assistant_id,
    run_attempt: 1,
  };
  for (const key of Object.keys(system)) setOwn(metadata, key, system[key]);
  const checkpoint: CheckpointRecord = {
    checkpoint_id: ctx.random.uuid7(now),
    parent_checkpoint_id: previous.at(-1)?.checkpoint_id ?? null,
    created_at: now,
    values: input.values ?? {},
    next: input.next,
    interrupts: input.interrupts,
    metadata,
  };
  checkpoints.set(input.run.thread_id, [...previous, checkpoint]);
  return checkpoint;
}

function checkpointRef(threadId: string, checkpointId: string | null) {
  return { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId, checkpoint_map: null };
}

/**
 * The `ThreadState` wire form (schema agent-server/thread.json#/$defs/ThreadState) of a checkpoint;
 * without one, the state of a thread no run has touched yet.
 */
export function threadStateResponse(threadId: string, c: CheckpointRecord | undefined) {
  if (!c) {
    return { values: {}, next: [], tasks: [], checkpoint: checkpointRef(threadId, null), metadata: {}, created_at: null, parent_checkpoint: null, interrupts: [] };
  }
  const node = c.next[0] ?? "agent";
  return {
    values: c.values,
    next: c.next,
    tasks: Object.entries(c.interrupts).map(([taskId, list]) => ({
      id: taskId,
      name: node,
      path: ["__pregel_pull", node],
      error: null,
      interrupts: list,
      checkpoint: null,
      state: null,
      result: null,
    })),
    checkpoint: checkpointRef(threadId, c.checkpoint_id),
    metadata: c.metadata,
    created_at: formatTimestamp(c.created_at),
    parent_checkpoint: c.parent_checkpoint_id === null ? null : checkpointRef(threadId, c.parent_checkpoint_id),
    interrupts: Object.values(c.interrupts).flat(),
  };
}
