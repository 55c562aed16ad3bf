import type { MockContext } from "../context.js";
import type { AgentServer } from "../agent-server/index.js";
import type { AdminRoutes } from "./index.js";

// Placeholder until the agent server lands (issue #4): GET/POST /_mock/scenarios, DELETE /_mock/scenarios/{name}.
export function scenarioAdminRoutes(_ctx: MockContext, _on: AdminRoutes, _agent: AgentServer): void {}
