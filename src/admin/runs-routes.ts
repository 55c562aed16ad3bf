import type { MockContext } from "../context.js";
import type { AgentServer } from "../agent-server/index.js";
import type { AdminRoutes } from "./index.js";

// Placeholder until the agent server lands (issue #4): GET /_mock/runs, GET /_mock/runs/{run_id}.
export function runsAdminRoutes(_ctx: MockContext, _on: AdminRoutes, _agent: AgentServer): void {}
