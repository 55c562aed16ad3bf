import { Router } from "express";
import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { jsonBody, onBodyProblem } from "../http/json-body.js";
import { requireApiKey } from "../http/api-key.js";
import { controlPlaneErrors } from "./errors.js";
import { Tenancy } from "./tenancy.js";
import { providersRoutes } from "./providers-routes.js";
import { integrationsRoutes } from "./integrations-routes.js";
import { deploymentsRoutes } from "./deployments-routes.js";
import { revisionsRoutes } from "./revisions-routes.js";

/** Paths of the control plane; nothing else passes through its middleware. */
const PREFIXES = ["/v1/integrations", "/v2/auth", "/v2/deployments"];

/**
 * The control plane (`{base_url}`): OAuth providers, repository integrations, deployments and
 * revisions. Seeds its collections from the fixtures and returns the router to mount at "/".
 */
export function controlPlane(ctx: MockContext, fixtures: FixtureSet): Router {
  const router = Router();
  const tenancy = new Tenancy(ctx, fixtures);
  router.use(PREFIXES, requireApiKey(ctx.options.apiKey, () => controlPlaneErrors.invalidToken()));
  router.use(PREFIXES, jsonBody(ctx.options.bodyLimit));
  router.use(PREFIXES, onBodyProblem(controlPlaneErrors.badBody));
  const on = ctx.routes.on(router);
  providersRoutes(ctx, on, fixtures, tenancy);
  integrationsRoutes(ctx, on, fixtures);
  deploymentsRoutes(ctx, on, fixtures, tenancy);
  revisionsRoutes(ctx, on);
  return router;
}

export type ControlPlaneRoutes = ReturnType<MockContext["routes"]["on"]>;
