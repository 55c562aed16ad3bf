import type { MockContext } from "../context.js";
import { reply, route, type RouteSpec } from "../http/route.js";
import { agentErrors } from "./errors.js";
import { errors, RUN_PATH } from "./route-schemas.js";
import { runsIn, runResponse, type RunCreateBody, type RunRecord, type RunService } from "./runs.js";
import { requireRun, runScope } from "./runs-routes.js";

const OPS = "agent-server/run-operations.json#/$defs/";

type RunsCancelBody = { status?: "pending" | "running" | "all"; thread_id?: string; run_ids?: string[] };

/** The runs a bulk cancel names: by status across threads, or the given ids on one thread (any status, as the real server selects them). */
function runsToCancel(ctx: MockContext, body: RunsCancelBody): RunRecord[] {
  const runs = runsIn(ctx);
  if (body.status) {
    const statuses = body.status === "all" ? ["pending", "running"] : [body.status];
    return runs.filter((r) => statuses.includes(r.status));
  }
  const ids = new Set(body.run_ids ?? []);
  return runs.filter((r) => r.thread_id === body.thread_id && ids.has(r.run_id));
}

/** `DELETE /threads/{id}/runs/{run_id}`, `POST /runs/cancel` (bulk) and `POST /runs/batch`. */
export function runOperationsRoutes(ctx: MockContext, runs: RunService): RouteSpec[] {
  return [
    route<{ params: { thread_id: string; run_id: string } }>({
      name: "runs.delete",
      method: "DELETE",
      path: "/threads/{thread_id}/runs/{run_id}",
      params: RUN_PATH,
      // [real] 204 without a body (the document says 200 `{}`; the server answers Response(status_code=204)).
      responses: { 204: null, ...errors(404, 422) },
      handler: async ({ params }) => {
        const run = requireRun(ctx, params);
        // A run still going is stopped first, so its end still settles the thread's status.
        const execution = runs.execution(run.run_id);
        if (execution && !execution.outcome) {
          execution.cancel("interrupt");
          await execution.done;
        }
        runsIn(ctx).delete(run.run_id);
        return reply(204);
      },
    }),
    route<{ query: { action: "interrupt" | "rollback" }; body: RunsCancelBody }>({
      name: "runs.cancel_many",
      method: "POST",
      path: "/runs/cancel",
      query: `${OPS}RunsCancelQuery`,
      body: `${OPS}RunsCancel`,
      responses: { 204: null, ...errors(404, 422) },
      handler: ({ query, body }) => {
        const found = runsToCancel(ctx, body);
        if (!found.length) throw agentErrors.noRunsToCancel();
        for (const run of found) runs.cancel(run.run_id, query.action);
        return reply(204);
      },
    }),
    route<{ body: RunCreateBody[] }>({
      name: "runs.batch",
      method: "POST",
      path: "/runs/batch",
      body: `${OPS}RunBatchCreate`,
      emptyBody: null,
      responses: { 200: `${OPS}RunBatchResponse`, ...errors(400, 404, 409, 422) },
      // Background stateless runs, created in order; a refused one answers for the batch (those before it stay created, as on the real server).
      handler: ({ body, scope }) => {
        const sent = Array.isArray(scope.sentBody) ? scope.sentBody : [];
        // Each run records its own item as sent (its explicit stream_mode, for one).
        return body.map((item, i) => runResponse(runs.create(item, { ...runScope(scope, "background", null), sentBody: sent[i] }).run));
      },
    }),
  ];
}
