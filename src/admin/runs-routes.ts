import type { MockContext } from "../context.js";
import type { AgentServer } from "../agent-server/index.js";
import { adminRunResponse, runCollection } from "../agent-server/runs.js";
import { adminErrors } from "./errors.js";
import type { AdminRoutes } from "./index.js";

/**
 * `GET /_mock/runs?thread_id=&scenario=&status=` and `GET /_mock/runs/{run_id}`: every run with the
 * request body as sent, the scenario and turn it played, its status and its feedback URLs.
 */
export function runsAdminRoutes(ctx: MockContext, on: AdminRoutes, _agent: AgentServer): void {
  on.get("/runs", (req, res) => {
    const { thread_id, scenario, status } = req.query as Record<string, string | undefined>;
    const items = runCollection(ctx)
      .filter((r) => (!thread_id || r.thread_id === thread_id) && (!scenario || r.scenario === scenario) && (!status || r.status === status))
      .map(adminRunResponse);
    res.json({ items, count: items.length });
  });
  on.get("/runs/:run_id", (req, res) => {
    const run = runCollection(ctx).get(String(req.params.run_id).toLowerCase());
    if (!run) throw adminErrors.notFound(`Run ${req.params.run_id}`);
    res.json(adminRunResponse(run));
  });
}
