import type { MockContext } from "../context.js";
import { getOwn, isPlainObject } from "../core/json.js";
import { checkpointsOf, latestCheckpoint, threadStateResponse, type CheckpointRecord } from "./checkpoints.js";
import { agentErrors } from "./errors.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { contains } from "../core/contains.js";
import { requireThread } from "./threads-routes.js";
import { errors, THREAD, THREAD_PATH } from "./route-schemas.js";

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

/** The thread's state at the checkpoint with this id (the latest without one); an id it lacks gives the empty snapshot naming it. */
function stateAt(ctx: MockContext, threadId: string, checkpointId: string | null | undefined) {
  if (!checkpointId) return threadStateResponse(threadId, latestCheckpoint(ctx, threadId));
  return threadStateResponse(threadId, checkpointsOf(ctx, threadId).find((c) => c.checkpoint_id === checkpointId), checkpointId);
}

/**
 * A thread's state and its history: `GET /threads/{id}/state`, `GET /threads/{id}/state/{checkpoint_id}`,
 * `POST /threads/{id}/state/checkpoint`, `GET|POST /threads/{id}/history`. Every state is the
 * `ThreadState` of one checkpoint (checkpoints.ts).
 */
export function threadStateRoutes(ctx: MockContext): RouteSpec[] {
  const statesOf = (threadId: string, search: HistorySearch) => {
    const thread = requireThread(ctx, threadId);
    return history(checkpointsOf(ctx, thread.thread_id), search).map((c) => threadStateResponse(thread.thread_id, c));
  };
  return [
    route<{ params: { thread_id: string } }>({
      name: "threads.state.get",
      method: "GET",
      path: "/threads/{thread_id}/state",
      params: THREAD_PATH,
      responses: { 200: `${THREAD}ThreadState`, ...errors(404, 422) },
      handler: ({ params }) => stateAt(ctx, requireThread(ctx, params.thread_id).thread_id, null),
    }),
    route<{ params: { thread_id: string; checkpoint_id: string } }>({
      name: "threads.state.at_checkpoint",
      method: "GET",
      path: "/threads/{thread_id}/state/{checkpoint_id}",
      // Any text: an id that names no checkpoint of the thread is the empty snapshot, as on the real server.
      params: object({ thread_id: UUID, checkpoint_id: { type: "string" } }),
      responses: { 200: `${THREAD}ThreadState`, ...errors(404, 422) },
      handler: ({ params }) => stateAt(ctx, requireThread(ctx, params.thread_id).thread_id, params.checkpoint_id),
    }),
    route<{ params: { thread_id: string }; body: { checkpoint: CheckpointConfig } }>({
      name: "threads.state.checkpoint",
      method: "POST",
      path: "/threads/{thread_id}/state/checkpoint",
      params: THREAD_PATH,
      body: `${THREAD}ThreadStateCheckpointRequest`,
      // No body reads as `{}`: the answer names the missing `checkpoint`.
      emptyBody: {},
      responses: { 200: `${THREAD}ThreadState`, ...errors(404, 422) },
      handler: ({ params, body }) => {
        const thread = requireThread(ctx, params.thread_id);
        if (body.checkpoint.checkpoint_ns) throw agentErrors.notFound();
        return stateAt(ctx, thread.thread_id, body.checkpoint.checkpoint_id);
      },
    }),
    route<{ params: { thread_id: string }; query: HistorySearch }>({
      name: "threads.history.list",
      method: "GET",
      path: "/threads/{thread_id}/history",
      params: THREAD_PATH,
      query: `${THREAD}ThreadHistoryQuery`,
      responses: { 200: `${THREAD}ThreadStateList`, ...errors(404, 422) },
      handler: ({ params, query }) => statesOf(params.thread_id, query),
    }),
    route<{ params: { thread_id: string }; body: HistorySearch }>({
      name: "threads.history.search",
      method: "POST",
      path: "/threads/{thread_id}/history",
      params: THREAD_PATH,
      body: `${THREAD}ThreadStateSearch`,
      emptyBody: {},
      responses: { 200: `${THREAD}ThreadStateList`, ...errors(404, 422) },
      handler: ({ params, body }) => statesOf(params.thread_id, body),
    }),
  ];
}
