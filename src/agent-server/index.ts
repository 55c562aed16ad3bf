import { Router } from "express";
import type { MockContext } from "../context.js";
import { cors } from "../http/cors.js";
import { requireApiKey } from "../http/api-key.js";
import { jsonBody, onBodyProblem } from "../http/json-body.js";
import { agentErrors } from "./errors.js";
import { assistantsRoutes } from "./assistants-routes.js";
import { RunService } from "./runs.js";
import { runsRoutes } from "./runs-routes.js";
import { ScenarioRegistry } from "./scenario-registry.js";
import type { ScenarioInput } from "./scenario-types.js";
import { systemRoutes } from "./system-routes.js";
import { threadStateRoutes } from "./thread-state-routes.js";
import { threadsRoutes } from "./threads-routes.js";

export interface AgentServer {
  router: Router;
  /** Loads scenario files, folders or objects; returns the names loaded. Throws LoadError on a bad one. */
  loadScenarios(input: readonly (string | ScenarioInput)[]): Promise<string[]>;
  /** The loaded scenarios (admin routes list, add and remove them). */
  scenarios: ScenarioRegistry;
  runs: RunService;
}

export type AgentRoutes = ReturnType<MockContext["routes"]["on"]>;

/** The agent server's own paths; its middleware (CORS, API key, JSON bodies) touches nothing else. */
const PATHS = ["/threads", "/runs", "/assistants", "/info", "/ok"];
const AUTHENTICATED = ["/threads", "/runs", "/assistants"];
/** A deployment's `custom_url` is `{base}/agents/<deployment_id>`: the same routes are served there. */
const DEPLOYMENT_PREFIX = "/agents/:deployment_id";

/**
 * The agent server (DESIGN §2): threads, default assistants of the scenarios' graphs, and runs whose
 * streams the scenario files script. Scenarios given here are read synchronously; a bad one throws
 * a LoadError naming file, JSON pointer and reason.
 *
 * @example
 * const agent = agentServer(ctx, ["scenarios"]);
 * app.use(agent.router);
 * await agent.loadScenarios([{ name: "hello", events: [{ event: "values", data: { messages: [] } }] }]);
 */
export function agentServer(ctx: MockContext, scenarios: readonly (string | ScenarioInput)[]): AgentServer {
  const registry = new ScenarioRegistry();
  registry.load(scenarios);
  registry.markStartup();
  ctx.onReset("scenarios", () => registry.reset());
  const runs = new RunService(ctx, registry);
  const assistantsCreatedAt = ctx.clock.now();

  const routes = (prefix: string): Router => {
    const router = Router({ mergeParams: true });
    router.use(PATHS, cors({ origins: ctx.options.corsOrigins }));
    router.use(AUTHENTICATED, requireApiKey(ctx.options.apiKey, (missing) => (missing ? agentErrors.missingAuth() : agentErrors.invalidToken())));
    router.use(PATHS, jsonBody(ctx.options.bodyLimit));
    router.use(PATHS, onBodyProblem(agentErrors.badBody));
    const on = ctx.routes.on(router, prefix);
    systemRoutes(on);
    threadsRoutes(ctx, on, runs);
    threadStateRoutes(ctx, on);
    assistantsRoutes(on, registry, assistantsCreatedAt);
    runsRoutes(ctx, on, runs);
    return router;
  };
  const router = Router();
  router.use(DEPLOYMENT_PREFIX, routes(DEPLOYMENT_PREFIX));
  router.use(routes(""));
  return {
    router,
    loadScenarios: async (input) => registry.load(input),
    scenarios: registry,
    runs,
  };
}
