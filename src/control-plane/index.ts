import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { apiKeyCheck } from "../http/api-key.js";
import { fastApiInvalid } from "../http/pydantic-issues.js";
import type { ServiceModule } from "../http/service-module.js";
import { controlPlaneErrors } from "./errors.js";
import { providersRoutes } from "./providers-routes.js";
import { integrationsRoutes } from "./integrations-routes.js";
import { deploymentsRoutes } from "./deployments-routes.js";
import { revisionsRoutes } from "./revisions-routes.js";
import { listenersRoutes } from "./listeners-routes.js";
import { deployCliRoutes } from "./deploy-cli-routes.js";
import { logsRoutes } from "./logs-routes.js";
import { controlPlaneState, seedControlPlane, type ControlPlaneState } from "./seed.js";
import { AgentAuth } from "./agent-auth.js";
import { AgentAuthStore } from "./agent-auth-store.js";
import { agentAuthRoutes } from "./agent-auth-routes.js";
import { authTokensRoutes } from "./auth-tokens-routes.js";

/**
 * The control plane (`{base_url}`): OAuth providers, repository integrations, deployments and
 * revisions. Every route gets the API key check and JSON body parsing from the module. Its seed step
 * reads the fixture MCP servers; app.ts builds the state with the instance the `fixture-servers` module
 * serves, which MCP discovery reaches through the routes.
 */
export function controlPlaneModule(ctx: MockContext, fixtures: FixtureSet, state: ControlPlaneState = controlPlaneState(ctx)): ServiceModule {
  const { tenancy, providers, deployments } = state;
  const agentAuth = new AgentAuth(ctx, new AgentAuthStore(ctx), providers, tenancy);
  return {
    name: "control-plane",
    prefixes: [""],
    securityScheme: "apiKey",
    authenticate: apiKeyCheck(ctx.options.apiKey, () => controlPlaneErrors.invalidToken()),
    cors: false,
    bodyError: controlPlaneErrors.badBody,
    invalid: fastApiInvalid,
    errorSchema: "common/errors.json#/$defs/FastApiError",
    routes: [
      ...providersRoutes(ctx, providers, tenancy), ...integrationsRoutes(ctx), ...deploymentsRoutes(ctx, deployments), ...revisionsRoutes(ctx), ...listenersRoutes(ctx, tenancy), ...deployCliRoutes(ctx, deployments), ...logsRoutes(ctx, deployments),
      ...agentAuthRoutes(agentAuth, ctx.options.allowOutbound),
      ...authTokensRoutes(agentAuth, providers, tenancy),
    ],
    seed: () => seedControlPlane(ctx, fixtures, state),
  };
}

// What the rest of the mock may use of the control plane (app.ts wires it).
export { controlPlaneControl, type ControlPlaneControl } from "./control-port.js";
export { controlPlaneState } from "./seed.js";
export type { RevisionStatus } from "./deployments-store.js";
