import type { MockContext } from "../context.js";
import { route, type RouteSpec } from "../http/route.js";
import type { RunService } from "./runs.js";
import { errors, THREAD, THREAD_PATH } from "./route-schemas.js";
import { countThreads, copyThread, pruneThreads, updateThreadState, type StateUpdate, type ThreadFilter } from "./thread-operations.js";
import { threadResponse } from "./threads.js";
import { requireThread } from "./threads-routes.js";

const OPS = "agent-server/thread-operations.json#/$defs/";

/** `POST /threads/count`, `POST /threads/prune`, `POST /threads/{id}/copy`, `POST /threads/{id}/state` (thread-operations.ts). */
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
  ];
}
