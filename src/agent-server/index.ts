import { Router } from "express";
import type { MockContext } from "../context.js";
import type { ScenarioInput } from "./scenario-types.js";

export interface AgentServer {
  router: Router;
  /** Loads scenario files, folders or objects; returns the names loaded. Throws LoadError on a bad one. */
  loadScenarios(input: readonly (string | ScenarioInput)[]): Promise<string[]>;
}

// Placeholder until the agent server lands (issue #4).
export function agentServer(_ctx: MockContext, _scenarios: readonly (string | ScenarioInput)[]): AgentServer {
  return { router: Router(), loadScenarios: async () => [] };
}
