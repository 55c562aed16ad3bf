import { Router } from "express";
import type { MockContext } from "../context.js";
import { sameSecret } from "../http/api-key.js";
import { jsonBody, onBodyProblem } from "../http/json-body.js";
import type { AgentServer } from "../agent-server/index.js";
import { adminErrors } from "./errors.js";
import { clockRoutes } from "./clock-routes.js";
import { resetRoutes } from "./reset-routes.js";
import { requestsRoutes } from "./requests-routes.js";
import { feedbackAdminRoutes } from "./feedback-routes.js";
import { runsAdminRoutes } from "./runs-routes.js";
import { scenarioAdminRoutes } from "./scenarios-routes.js";
import { lifecycleAdminRoutes } from "./lifecycle-routes.js";

/** The mock's own inspection and control API (DESIGN §4), mounted at /_mock and never journaled. */
export function adminApi(ctx: MockContext, agent: AgentServer): Router {
  const router = Router();
  const on = ctx.routes.on(router, "/_mock");
  router.use((req, _res, next) => {
    const token = ctx.options.adminToken;
    if (!token || sameSecret(req.headers.authorization ?? "", `Bearer ${token}`)) return next();
    next(adminErrors.unauthorized());
  });
  // Scenario uploads may be YAML; that route reads its own body.
  const json = jsonBody(ctx.options.bodyLimit);
  router.use((req, res, next) => (req.path.startsWith("/scenarios") ? next() : json(req, res, next)));
  router.use(onBodyProblem(adminErrors.badBody));
  on.get("/health", (_req, res) => {
    res.json({ ok: true });
  });
  clockRoutes(ctx, on);
  resetRoutes(ctx, on);
  requestsRoutes(ctx, on);
  feedbackAdminRoutes(ctx, on);
  runsAdminRoutes(ctx, on, agent);
  scenarioAdminRoutes(ctx, on, agent);
  lifecycleAdminRoutes(ctx, on);
  return router;
}

export type AdminRoutes = ReturnType<MockContext["routes"]["on"]>;
