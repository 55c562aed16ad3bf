import type { MockContext } from "../context.js";
import type { AdminRoutes } from "./index.js";

// Placeholder until deployments land (issue #3): scripting lifecycle failures.
export function lifecycleAdminRoutes(_ctx: MockContext, _on: AdminRoutes): void {}
