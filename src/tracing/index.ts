import type { MockContext } from "../context.js";
import { apiKeyCheck } from "../http/api-key.js";
import { fastApiInvalid } from "../http/pydantic-issues.js";
import type { ServiceModule } from "../http/service-module.js";
import { tracingErrors } from "./errors.js";
import { submitRoutes } from "./submit-routes.js";
import { tokenRoutes } from "./token-routes.js";
import { feedbackRoutes } from "./feedback-routes.js";
import { infoRoute } from "./info-route.js";
import { feedbackConfigRoutes } from "./feedback-config-routes.js";
import { feedbackFormulaRoutes } from "./feedback-formula-routes.js";
import { runRoutes } from "./run-routes.js";
import { sessionRoutes } from "./session-routes.js";

/**
 * The tracing service (`{tracing_url}/api/v1`, LangSmith): presigned feedback token URLs, the token
 * and feedback API the langsmith client uses, run ingestion and read-back, projects, and `/info`. API key on every route but the token URLs
 * (the token is the authorization) and `/info`.
 */
export function tracingModule(ctx: MockContext): ServiceModule {
  return {
    name: "tracing",
    securityScheme: "apiKey",
    prefixes: ["/api/v1"],
    authenticate: apiKeyCheck(ctx.options.apiKey, () => tracingErrors.invalidToken()),
    cors: false,
    bodyError: tracingErrors.badBody,
    invalid: fastApiInvalid,
    errorSchema: "common/errors.json#/$defs/FastApiError",
    // Literal paths before parameter routes that could capture them.
    routes: [...tokenRoutes(ctx), ...submitRoutes(ctx), ...feedbackFormulaRoutes(ctx), ...feedbackRoutes(ctx), ...feedbackConfigRoutes(ctx), infoRoute(ctx), ...runRoutes(ctx), ...sessionRoutes(ctx)],
  };
}

// What the rest of the mock may use of the tracing service (app.ts wires it).
export { tracingControl, type TracingControl } from "./control-port.js";
export { tracingPort } from "./port.js";
export type { CapturedFeedback, FeedbackFilter } from "./captured-feedback.js";
export type { CapturedTrace, TraceFilter } from "./trace-views.js";
