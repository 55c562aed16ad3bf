import type { MockContext } from "../context.js";
import { getOwn, isPlainObject, omit, setOwn } from "../core/json.js";
import { checkpointsIn, checkpointsOf, latestCheckpoint, threadStateResponse, type CheckpointRecord } from "./checkpoints.js";
import { agentErrors } from "./errors.js";
import { runsIn, type RunService } from "./runs.js";
import { applyWrites, ReducerError, type Channels } from "./reducers.js";
import { contains } from "../core/contains.js";
import { publishThreadEvent } from "./thread-stream.js";
import { threadsIn, newThread, type ThreadRecord, type ThreadStatus } from "./threads.js";

export interface ThreadFilter {
  metadata?: Record<string, unknown>;
  values?: Record<string, unknown>;
  status?: ThreadStatus;
}

/** Whether a thread passes a search/count filter; stateless runs' temporary threads never do. */
export function threadMatches(t: ThreadRecord, filter: ThreadFilter): boolean {
  return (
    !t.temporary &&
    (!filter.status || t.status === filter.status) &&
    (!filter.metadata || contains(t.metadata, filter.metadata)) &&
    (!filter.values || contains(t.values ?? {}, filter.values))
  );
}

/** `POST /threads/count`: how many threads a search with this filter would find, without paging. */
export function countThreads(ctx: MockContext, filter: ThreadFilter): number {
  return threadsIn(ctx).filter((t) => threadMatches(t, filter)).length;
}

/** Removes a thread with its runs (cancelling those still going) and checkpoints, as `DELETE /threads/{id}` does. */
export function removeThread(ctx: MockContext, runs: RunService, threadId: string): void {
  runs.deleteThread(threadId);
  const runRecords = runsIn(ctx);
  for (const run of runRecords.filter((r) => r.thread_id === threadId)) runRecords.delete(run.run_id);
  threadsIn(ctx).delete(threadId);
  checkpointsIn(ctx).delete(threadId);
}

/**
 * `POST /threads/prune`: `delete` removes each named thread; `keep_latest` keeps the thread and only its
 * newest checkpoint. Ids that name no thread are skipped; the count is of threads pruned.
 */
export function pruneThreads(ctx: MockContext, runs: RunService, threadIds: readonly string[], strategy: "delete" | "keep_latest"): number {
  const threads = threadsIn(ctx);
  let pruned = 0;
  for (const id of new Set(threadIds)) {
    if (!threads.get(id)) continue;
    pruned += 1;
    if (strategy === "delete") {
      removeThread(ctx, runs, id);
      continue;
    }
    const latest = latestCheckpoint(ctx, id);
    if (latest) checkpointsIn(ctx).set(id, [latest]);
  }
  return pruned;
}

/**
 * `POST /threads/{id}/copy`: a new thread with the source's metadata and every checkpoint (same ids,
 * `thread_id` in their metadata rewritten), as the real server copies them. The new thread row starts
 * idle with no `values` (the real server copies only `metadata` into it); its state is the copied
 * checkpoints'. It keeps the source's place in its scenario, so the copy's next run plays the turn
 * the source's would have. A source that does not exist is the real server's 409.
 */
export function copyThread(ctx: MockContext, sourceId: string): ThreadRecord {
  const threads = threadsIn(ctx);
  const source = threads.get(sourceId);
  if (!source) throw agentErrors.conflict();
  const id = ctx.random.uuid4();
  const copy: ThreadRecord = { ...newThread(ctx, id, omit(source.metadata, [])), scenario: source.scenario };
  threads.set(id, copy);
  const checkpoints = checkpointsOf(ctx, sourceId).reverse();
  if (checkpoints.length) {
    checkpointsIn(ctx).set(
      id,
      checkpoints.map((c) => {
        const metadata = omit(c.metadata, []);
        setOwn(metadata, "thread_id", id);
        return { ...c, metadata };
      }),
    );
  }
  return copy;
}

export interface StateUpdate {
  values?: unknown;
  checkpoint?: { checkpoint_id?: string | null; checkpoint_ns?: string };
  checkpoint_id?: string;
  as_node?: string;
}

/** The node a state update is written as: `as_node`, else the one writer of the checkpoint it starts from. */
function writerOf(base: CheckpointRecord | undefined, asNode: string | undefined): string {
  if (asNode) return asNode;
  const writes = getOwn(base?.metadata, "writes");
  const names = isPlainObject(writes) ? Object.keys(writes) : [];
  return names.length === 1 ? (names[0] as string) : "__start__";
}

/**
 * An update applied to state values as LangGraph's `update_state` applies a node's writes: through
 * the graph's channel reducers (reducers.ts); a list is several writes of the one step. A write the
 * reducers refuse is a 422 naming LangGraph's error, not a 500.
 */
function applyUpdate(ctx: MockContext, values: Record<string, unknown>, update: unknown, channels: Channels): Record<string, unknown> {
  try {
    return applyWrites(values, Array.isArray(update) ? update : [update], channels, () => ctx.random.uuid4());
  } catch (err) {
    if (err instanceof ReducerError) throw agentErrors.invalidBody(`${err.error}: ${err.message}`);
    throw err;
  }
}

/**
 * `POST /threads/{id}/state`: a new checkpoint after the latest (or after the one named by
 * `checkpoint`/`checkpoint_id`, which forks there), with metadata `source: "update"` and the update
 * in `writes` under the node it is written as. As on the real server, a busy thread is a 409 and a
 * thread no run has given a graph is a 400. The thread's values become the new state.
 */
export function updateThreadState(ctx: MockContext, runs: RunService, thread: ThreadRecord, update: StateUpdate) {
  const threadId = thread.thread_id;
  if (thread.status === "busy" || runs.active(threadId).length > 0) throw agentErrors.threadBusyForUpdate();
  const graphId = getOwn(thread.metadata, "graph_id") ?? runsIn(ctx).find((r) => r.thread_id === threadId)?.graph_id;
  if (typeof graphId !== "string") throw agentErrors.noGraphForThread(threadId);
  const forkAt = update.checkpoint?.checkpoint_id || update.checkpoint_id || undefined;
  const history = checkpointsOf(ctx, threadId);
  const base = forkAt === undefined ? history[0] : history.find((c) => c.checkpoint_id === forkAt);
  if (forkAt !== undefined && !base) throw agentErrors.notFound();
  return saveUpdate(ctx, thread, graphId, base, [{ values: update.values, as_node: update.as_node }], runs.channels(graphId));
}

/** One update of a superstep (`threads.create(supersteps)`): values written as a node. */
export interface SuperstepUpdate {
  values?: unknown;
  as_node: string;
}

/**
 * `POST /threads` with `supersteps`: one checkpoint per superstep on the new thread, each after the
 * one before, its updates applied in order as `POST /threads/{id}/state` applies one (LangGraph's
 * `bulk_update_state`). The thread needs a graph (`graph_id` in its metadata), as a state update does.
 */
export function applySupersteps(ctx: MockContext, runs: RunService, threadId: string, supersteps: readonly { updates: readonly SuperstepUpdate[] }[]): void {
  for (const superstep of supersteps) {
    if (!superstep.updates.length) continue;
    const thread = threadsIn(ctx).get(threadId);
    if (!thread) return;
    const graphId = getOwn(thread.metadata, "graph_id");
    if (typeof graphId !== "string") throw agentErrors.noGraphForThread(threadId);
    saveUpdate(ctx, thread, graphId, checkpointsOf(ctx, threadId)[0], superstep.updates, runs.channels(graphId));
  }
}

/** Writes one `update` checkpoint after `base` holding these updates, and makes it the thread's state. */
function saveUpdate(ctx: MockContext, thread: ThreadRecord, graphId: string, base: CheckpointRecord | undefined, updates: readonly { values?: unknown; as_node?: string | undefined }[], channels: Channels) {
  const threadId = thread.thread_id;
  const written: Record<string, unknown> = {};
  let values = base?.values ?? {};
  for (const update of updates) {
    setOwn(written, writerOf(base, update.as_node), update.values ?? null);
    values = applyUpdate(ctx, values, update.values, channels);
  }
  const now = ctx.clock.now();
  const metadata: Record<string, unknown> = {};
  const step = getOwn(base?.metadata, "step");
  const system: Record<string, unknown> = {
    source: "update",
    step: (typeof step === "number" ? step : -2) + 1,
    parents: {},
    writes: written,
    thread_id: threadId,
    graph_id: graphId,
  };
  const assistantId = getOwn(thread.metadata, "assistant_id");
  if (typeof assistantId === "string") system.assistant_id = assistantId;
  for (const key of Object.keys(system)) setOwn(metadata, key, system[key]);
  const checkpoint: CheckpointRecord = {
    checkpoint_id: ctx.random.uuid7(now),
    parent_checkpoint_id: base?.checkpoint_id ?? null,
    created_at: now,
    values,
    next: [],
    interrupts: {},
    metadata,
  };
  const lists = checkpointsIn(ctx);
  lists.set(threadId, [...(lists.get(threadId) ?? []), checkpoint]);
  threadsIn(ctx).set(threadId, { ...thread, status: "idle", values: checkpoint.values, interrupts: {}, updated_at: now, state_updated_at: now });
  // [real] the update is published to the thread's streams as `state_update`.
  publishThreadEvent(ctx, threadId, "state_update", { state: threadStateResponse(threadId, checkpoint), thread_id: threadId });
  const ref = { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpoint.checkpoint_id };
  return { checkpoint: ref, configurable: { ...ref }, checkpoint_id: checkpoint.checkpoint_id };
}
