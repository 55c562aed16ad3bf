import type { MockContext } from "../context.js";
import { adminErrors } from "./errors.js";
import type { AdminRoutes } from "./index.js";

/** `GET /_mock/requests?method=&path=&limit=` — the bounded request journal, oldest first. */
export function requestsRoutes(ctx: MockContext, on: AdminRoutes): void {
  on.get("/requests", (req, res) => {
    const { method, path, limit } = req.query as Record<string, string | undefined>;
    let max: number | undefined;
    if (limit !== undefined) {
      max = Number(limit);
      if (!Number.isInteger(max) || max < 0) throw adminErrors.badRequest(`limit must be a whole number ≥ 0; got ${JSON.stringify(limit)}`);
    }
    const items = ctx.journal.list({ method, path, limit: max });
    res.json({ items, count: items.length });
  });
  on.delete("/requests", (_req, res) => {
    ctx.journal.clear();
    res.json({ ok: true });
  });
}
