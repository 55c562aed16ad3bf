import { Router } from "express";
import type { MockContext } from "../context.js";
import { cors } from "../http/cors.js";
import { requireApiKey } from "../http/api-key.js";
import { jsonBody, onBodyProblem } from "../http/json-body.js";
import { tracingErrors } from "./errors.js";
import { submitRoutes } from "./submit-routes.js";
import { tokenRoutes } from "./token-routes.js";
import { feedbackRoutes } from "./feedback-routes.js";
import { infoRoute } from "./info-route.js";

/** Paths that need no API key: the presigned token URLs (the token is the authorization) and `/info`. */
const PUBLIC = /^\/(info|feedback\/tokens\/[^/]+)\/?$/;

/**
 * The tracing service (`{tracing_url}/api/v1`, LangSmith): presigned feedback token URLs, the token
 * and feedback API the langsmith client uses, and `/info`. Returns the router app.ts mounts at /api/v1.
 */
export function tracingService(ctx: MockContext): Router {
  const router = Router();
  const on = ctx.routes.on(router, "/api/v1");
  // A web front end calls the token URLs directly, from another origin (DESIGN §2).
  router.use("/feedback/tokens/:token", cors());
  const apiKey = requireApiKey(ctx.options.apiKey, () => tracingErrors.invalidToken());
  router.use((req, res, next) => (PUBLIC.test(req.path) ? next() : apiKey(req, res, next)));
  router.use(jsonBody(ctx.options.bodyLimit));
  router.use(onBodyProblem(tracingErrors.badBody));
  tokenRoutes(ctx, on);
  submitRoutes(ctx, on);
  feedbackRoutes(ctx, on);
  infoRoute(on);
  return router;
}

export type TracingRoutes = ReturnType<MockContext["routes"]["on"]>;
