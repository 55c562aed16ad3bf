import type { MockContext } from "../context.js";
import { apiKeyCheck } from "../http/api-key.js";
import type { ServiceModule } from "../http/service-module.js";
import { a2aRoutes } from "./a2a-routes.js";
import { agentErrors } from "./errors.js";
import { assistantsRoutes } from "./assistants-routes.js";
import { Assistants } from "./assistants.js";
import { GraphCatalog } from "./graphs.js";
import type { FixtureSet } from "../store/fixtures.js";
import { CronScheduler } from "./crons.js";
import { cronsRoutes } from "./crons-routes.js";
import { mcpRoutes } from "./mcp-routes.js";
import { protocolRoutes } from "./protocol-routes.js";
import { RunService } from "./runs.js";
import type { Tracing } from "../ports.js";
import { runsRoutes } from "./runs-routes.js";
import { runOperationsRoutes } from "./run-operations-routes.js";
import { ERROR } from "./route-schemas.js";
import { ScenarioRegistry } from "./scenario-registry.js";
import type { ScenarioInput } from "./scenario-types.js";
import { storeRoutes } from "./store-routes.js";
import { systemRoutes } from "./system-routes.js";
import { withServerPages } from "./server-pages-routes.js";
import { threadOperationsRoutes } from "./thread-operations-routes.js";
import { threadStateRoutes } from "./thread-state-routes.js";
import { threadsRoutes } from "./threads-routes.js";
import { agentServerControl, type AgentServerControl } from "./control-port.js";

export type { AdminRun, AgentServerControl, RunEvents, RunFilter } from "./control-port.js";
export type { OverrideHandle } from "./scenario-registry.js";
export type { Ending, LoadedScenario, Scenario, ScenarioEvent, ScenarioFile, ScenarioInput, ScenarioMatch, Turn } from "./scenario-types.js";

/** The agent server's state and control: what its routes, the admin API and MockControl share. */
export interface AgentServer {
  /** The loaded scenarios (admin routes list, add and remove them). */
  scenarios: ScenarioRegistry;
  runs: RunService;
  /** Fires crons on the mock clock. */
  crons: CronScheduler;
  /** The assistants (each graph's default one and those made with `POST /assistants`). */
  assistants: Assistants;
  /** The graphs' shapes, from the `graphs` fixtures (assistant graph, schemas and subgraphs routes). */
  graphs: GraphCatalog;
  /** What the rest of the mock may use (MockControl, the change feed, the inspector). */
  control: AgentServerControl;
}

/**
 * The agent server's state (DESIGN §2): the scenario registry, whose graphs give the default
 * assistants, and the runs the scenarios script; `tracing` is the tracing service's port (feedback URLs,
 * run traces), which the app wires. Scenarios given here are read synchronously; a bad
 * one throws a LoadError naming file, JSON pointer and reason. Its routes are `agentServerModule`.
 *
 * @example
 * const agent = agentServer(ctx, ["scenarios"]);
 * registrar.add(agentServerModule(ctx, agent));
 * await agent.control.loadScenarios([{ name: "hello", events: [{ event: "values", data: { messages: [] } }] }]);
 */
export function agentServer(ctx: MockContext, scenarios: readonly (string | ScenarioInput)[], tracing?: Tracing): AgentServer {
  const registry = new ScenarioRegistry();
  registry.load(scenarios);
  registry.markStartup();
  ctx.onReset("scenarios", () => registry.reset());
  const graphs = new GraphCatalog();
  // A graph is known when a scenario plays it or a `graphs` fixture describes it.
  const assistants = new Assistants(ctx, () => [...registry.graphs(), ...graphs.ids()]);
  const runs = new RunService(ctx, registry, assistants, tracing, graphs);
  return {
    scenarios: registry,
    runs,
    crons: new CronScheduler(ctx, runs),
    assistants,
    graphs,
    control: agentServerControl(ctx, registry, runs),
  };
}

/**
 * The agent server's routes: threads, their state and history, the default assistants, and runs.
 * Served at the root and under a deployment's `custom_url` (`/agents/{deployment_id}`: the same
 * routes; the run records which deployment). API key on every route but `/ok` and `/info`; browsers
 * may call every route (the SDKs run in front ends).
 */
export function agentServerModule(ctx: MockContext, agent: AgentServer, fixtures?: FixtureSet): ServiceModule {
  return {
    name: "agent-server",
    prefixes: ["", "/agents/{deployment_id}"],
    // [real] the LangSmith auth backend answers 403 for a missing or a wrong key.
    authenticate: apiKeyCheck(ctx.options.apiKey, (missing) => (missing ? agentErrors.missingAuth() : agentErrors.invalidToken())),
    cors: true,
    // [real] the Python server reads a body with Starlette's request.json(), whatever its Content-Type;
    // another site's text/plain write is stopped by the origin check (docs/security.md).
    jsonFromAnyContentType: true,
    bodyError: agentErrors.badBody,
    invalid: agentErrors.invalidRequest,
    errorSchema: ERROR,
    routes: withServerPages(ctx, [
      ...systemRoutes,
      ...threadsRoutes(ctx, agent.runs),
      ...threadOperationsRoutes(ctx, agent.runs),
      ...threadStateRoutes(ctx),
      ...assistantsRoutes(ctx, agent.assistants, agent.graphs, agent.runs),
      ...runsRoutes(ctx, agent.runs),
      ...a2aRoutes(ctx, agent.runs),
      ...mcpRoutes(ctx, agent.runs, agent.scenarios),
      ...runOperationsRoutes(ctx, agent.runs),
      ...storeRoutes(ctx),
      ...protocolRoutes(ctx, agent.runs),
      ...cronsRoutes(ctx, agent.crons, agent.assistants),
    ]),
    // The last step of the seed phase: the graphs the fixtures describe, then a default assistant
    // for every known graph (so they are part of the state reset() returns to).
    seed() {
      if (fixtures) agent.graphs.seed(fixtures);
      agent.assistants.sync();
    },
  };
}
