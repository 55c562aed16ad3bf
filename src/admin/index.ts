import type { MockContext } from "../context.js";
import { sameSecret } from "../http/api-key.js";
import type { ServiceModule } from "../http/service-module.js";
import type { RouteSpec } from "../http/route.js";
import type { MockControl } from "../mock-control.js";
import { adminErrors } from "./errors.js";
import { controlRoutes } from "./control-routes.js";
import { inspectionRoutes } from "./inspection-routes.js";
import { faultsRoutes } from "./faults-routes.js";
import { tracesRoutes } from "./traces-routes.js";

/**
 * The mock's own inspection and control API (DESIGN §4) at /_mock: a thin HTTP adapter over
 * MockControl (it imports no service internals), never journaled, behind the admin token when one is
 * configured. Unknown query parameters are refused: a misspelt filter would match everything.
 */
export function adminModule(ctx: MockContext, control: MockControl, extra: readonly RouteSpec[] = []): ServiceModule {
  const token = ctx.options.adminToken;
  return {
    name: "admin",
    securityScheme: "adminToken",
    prefixes: ["/_mock"],
    authenticate: token ? (headers) => (sameSecret(headers.authorization ?? "", `Bearer ${token}`) ? undefined : adminErrors.unauthorized()) : undefined,
    cors: false,
    bodyError: adminErrors.badBody,
    invalid: adminErrors.invalid,
    mapError: adminErrors.fromControl,
    strictQuery: true,
    errorSchema: "common/errors.json#/$defs/AdminError",
    control: true,
    routes: [...controlRoutes(control), ...inspectionRoutes(control), ...faultsRoutes(control), ...tracesRoutes(control), ...extra],
  };
}
