import type { MockContext, ResetScope } from "../context.js";
import { isPlainObject } from "../core/json.js";
import { adminErrors } from "./errors.js";
import type { AdminRoutes } from "./index.js";

const SCOPES: ResetScope[] = ["all", "store", "feedback", "journal", "scenarios"];

/** `POST /_mock/reset {"scope": …}` — back to the state right after start, without a restart. */
export function resetRoutes(ctx: MockContext, on: AdminRoutes): void {
  on.post("/reset", (req, res) => {
    const body: unknown = req.body ?? {};
    const scope = isPlainObject(body) ? (body.scope ?? "all") : undefined;
    if (!SCOPES.includes(scope as ResetScope)) {
      throw adminErrors.badRequest(`scope must be one of ${SCOPES.map((s) => `"${s}"`).join(", ")}; got ${JSON.stringify(scope)}`);
    }
    ctx.reset(scope as ResetScope);
    res.json({ ok: true, scope });
  });
}
