import type { MockContext } from "../context.js";
import { getOwn, isPlainObject } from "../core/json.js";
import { checkpointsOf, latestCheckpoint, threadStateResponse, type CheckpointRecord } from "./checkpoints.js";
import { agentErrors } from "./errors.js";
import type { AgentRoutes } from "./index.js";
import { contains } from "./search-filters.js";
import { requireThread } from "./threads-routes.js";
import { readBody, readQuery } from "./validation.js";

const THREAD_SCHEMA = "agent-server/thread.json#/$defs";

interface CheckpointConfig {
  checkpoint_ns?: string;
  checkpoint_id?: string | null;
}

interface HistorySearch {
  limit: number;
  before?: unknown;
  metadata?: Record<string, unknown> | null;
  checkpoint?: CheckpointConfig | null;
}

/**
 * The checkpoint id a `before` names: a string, a CheckpointConfig (`{checkpoint_id}`, the OpenAPI
 * document) or a run config (`{configurable: {checkpoint_id}}`, the JS SDK's type).
 */
function beforeId(before: unknown): string | undefined {
  if (typeof before === "string") return before || undefined;
  const id = getOwn(getOwn(before, "configurable"), "checkpoint_id") ?? getOwn(before, "checkpoint_id");
  return typeof id === "string" && id ? id : undefined;
}

/** A thread's states, newest first, filtered as the real server's checkpointer lists them. */
function history(checkpoints: CheckpointRecord[], search: HistorySearch): CheckpointRecord[] {
  // The mock keeps no subgraph checkpoints: a namespace other than the root has none.
  if (search.checkpoint?.checkpoint_ns) return [];
  let list = checkpoints;
  const only = search.checkpoint?.checkpoint_id;
  if (only) list = list.filter((c) => c.checkpoint_id === only);
  const before = beforeId(search.before);
  if (before !== undefined) {
    const at = list.findIndex((c) => c.checkpoint_id === before);
    list = at < 0 ? [] : list.slice(at + 1);
  }
  const metadata = search.metadata;
  if (isPlainObject(metadata)) list = list.filter((c) => contains(c.metadata, metadata));
  return list.slice(0, search.limit);
}

/** The thread's checkpoint with this id; the latest without one; 404 when the thread has no such checkpoint. */
function checkpointAt(ctx: MockContext, threadId: string, checkpointId: string | null | undefined): CheckpointRecord | undefined {
  if (!checkpointId) return latestCheckpoint(ctx, threadId);
  const found = checkpointsOf(ctx, threadId).find((c) => c.checkpoint_id === checkpointId);
  if (!found) throw agentErrors.notFound();
  return found;
}

/**
 * A thread's state and its history: `GET /threads/{id}/state`, `GET /threads/{id}/state/{checkpoint_id}`,
 * `POST /threads/{id}/state/checkpoint`, `GET|POST /threads/{id}/history`. Every state is the
 * `ThreadState` of one checkpoint (checkpoints.ts).
 */
export function threadStateRoutes(ctx: MockContext, on: AgentRoutes): void {
  on.get("/threads/:thread_id/state", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    res.json(threadStateResponse(thread.thread_id, latestCheckpoint(ctx, thread.thread_id)));
  });

  on.get("/threads/:thread_id/state/:checkpoint_id", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    res.json(threadStateResponse(thread.thread_id, checkpointAt(ctx, thread.thread_id, req.params.checkpoint_id as string)));
  });

  on.post("/threads/:thread_id/state/checkpoint", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    const body = readBody<{ checkpoint: CheckpointConfig }>(`${THREAD_SCHEMA}/ThreadStateCheckpointRequest`, req.body ?? {});
    if (body.checkpoint.checkpoint_ns) throw agentErrors.notFound();
    res.json(threadStateResponse(thread.thread_id, checkpointAt(ctx, thread.thread_id, body.checkpoint.checkpoint_id)));
  });

  on.get("/threads/:thread_id/history", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    const query = readQuery<HistorySearch>(`${THREAD_SCHEMA}/ThreadHistoryQuery`, req.query as Record<string, unknown>);
    res.json(history(checkpointsOf(ctx, thread.thread_id), query).map((c) => threadStateResponse(thread.thread_id, c)));
  });

  on.post("/threads/:thread_id/history", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    const body = readBody<HistorySearch>(`${THREAD_SCHEMA}/ThreadStateSearch`, req.body ?? {});
    res.json(history(checkpointsOf(ctx, thread.thread_id), body).map((c) => threadStateResponse(thread.thread_id, c)));
  });
}
