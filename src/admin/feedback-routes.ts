import type { MockContext } from "../context.js";
import type { AdminRoutes } from "./index.js";

// Placeholder until the tracing service lands (issue #5): GET/DELETE /_mock/feedback.
export function feedbackAdminRoutes(_ctx: MockContext, _on: AdminRoutes): void {}
