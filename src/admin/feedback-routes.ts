import type { MockContext } from "../context.js";
import { capturedFeedback, type FeedbackFilter } from "../tracing/captured-feedback.js";
import { feedbackCollection } from "../tracing/feedback-records.js";
import type { AdminRoutes } from "./index.js";

const FILTERS = ["key", "run_id", "thread_id", "token_id"] as const;

/**
 * `GET /_mock/feedback?key=&run_id=&thread_id=&token_id=` — captured feedback in arrival order,
 * `{"items": […], "count": n}`; `DELETE /_mock/feedback` forgets it.
 */
export function feedbackAdminRoutes(ctx: MockContext, on: AdminRoutes): void {
  on.get("/feedback", (req, res) => {
    const filter: FeedbackFilter = {};
    for (const name of FILTERS) {
      const value = req.query[name];
      if (value !== undefined) filter[name] = String(Array.isArray(value) ? value[value.length - 1] : value);
    }
    const items = capturedFeedback(ctx, filter);
    res.json({ items, count: items.length });
  });
  on.delete("/feedback", (_req, res) => {
    const feedback = feedbackCollection(ctx);
    const deleted = feedback.size;
    feedback.clear();
    res.json({ ok: true, deleted });
  });
}
