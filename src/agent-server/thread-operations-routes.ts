import type { MockContext } from "../context.js";
import { route, type RouteSpec } from "../http/route.js";
import type { RunService } from "./runs.js";
import { errors, headers, THREAD, THREAD_PATH, THREAD_STREAM } from "./route-schemas.js";
import { agentErrors } from "./errors.js";
import { joinThreadStream, validStreamId, type ThreadStreamMode } from "./thread-stream.js";
import { countThreads, copyThread, pruneThreads, updateThreadState, type StateUpdate, type ThreadFilter } from "./thread-operations.js";
import { threadResponse } from "./threads.js";
import { requireThread } from "./threads-routes.js";

const OPS = "agent-server/thread-operations.json#/$defs/";

const STREAM_MODES: readonly string[] = ["lifecycle", "run_modes", "state_update"];

/** `stream_modes` as the real server reads it: one value, a comma-separated list, or repeated; default `run_modes`. */
function streamModes(raw: unknown): Set<ThreadStreamMode> {
  const values = (Array.isArray(raw) ? raw : raw === undefined || raw === "" ? [] : [raw]).flatMap((v) => String(v).split(",")).map((v) => v.trim());
  for (const mode of values) if (!STREAM_MODES.includes(mode)) throw agentErrors.invalidThreadStreamMode(mode);
  return new Set((values.length ? values : ["run_modes"]) as ThreadStreamMode[]);
}

/** `POST /threads/count`, `POST /threads/prune`, `POST /threads/{id}/copy`, `POST /threads/{id}/state` (thread-operations.ts), `GET /threads/{id}/stream` (thread-stream.ts). */
export function threadOperationsRoutes(ctx: MockContext, runs: RunService): RouteSpec[] {
  return [
    route<{ body: ThreadFilter }>({
      name: "threads.count",
      method: "POST",
      path: "/threads/count",
      body: `${OPS}ThreadCountRequest`,
      emptyBody: {},
      responses: { 200: `${OPS}ThreadCount`, ...errors(404, 422) },
      handler: ({ body }) => countThreads(ctx, body),
    }),
    route<{ body: { thread_ids: string[]; strategy: "delete" | "keep_latest" } }>({
      name: "threads.prune",
      method: "POST",
      path: "/threads/prune",
      body: `${OPS}ThreadPruneRequest`,
      responses: { 200: `${OPS}ThreadPruneResponse`, ...errors(422) },
      handler: ({ body }) => ({ pruned_count: pruneThreads(ctx, runs, body.thread_ids, body.strategy) }),
    }),
    route<{ params: { thread_id: string } }>({
      name: "threads.copy",
      method: "POST",
      path: "/threads/{thread_id}/copy",
      params: THREAD_PATH,
      responses: { 200: `${THREAD}Thread`, ...errors(409, 422) },
      handler: ({ params }) => threadResponse(copyThread(ctx, params.thread_id)),
    }),
    route<{ params: { thread_id: string }; body: StateUpdate }>({
      name: "threads.state.update",
      method: "POST",
      path: "/threads/{thread_id}/state",
      params: THREAD_PATH,
      body: `${OPS}ThreadStateUpdate`,
      responses: { 200: `${OPS}ThreadStateUpdateResponse`, ...errors(400, 404, 409, 422) },
      handler: ({ params, body }) => updateThreadState(ctx, runs, requireThread(ctx, params.thread_id), body),
    }),
    route<{ params: { thread_id: string }; query: { stream_modes?: unknown }; headers: { "last-event-id"?: string } }>({
      name: "threads.join_stream",
      method: "GET",
      path: "/threads/{thread_id}/stream",
      params: THREAD_PATH,
      // Read by hand, as the real server does (a single value, a comma list or repeated).
      query: { type: "object", properties: { stream_modes: {} } },
      headers: headers({ "last-event-id": { type: "string" } }),
      responses: { 200: THREAD_STREAM, ...errors(404, 422) },
      handler: ({ params, query, headers }) => {
        const thread = requireThread(ctx, params.thread_id);
        const modes = streamModes(query.stream_modes);
        const lastEventId = headers["last-event-id"] || undefined;
        if (lastEventId !== undefined && !validStreamId(lastEventId)) throw agentErrors.invalidStreamId();
        const replayAfterMs = lastEventId === undefined ? null : lastEventId === "-" ? -Infinity : Number(lastEventId.split("-")[0]);
        return joinThreadStream(ctx, runs, thread.thread_id, { modes, replayAfterMs, stallMs: ctx.options.streamStallMs });
      },
    }),
  ];
}
