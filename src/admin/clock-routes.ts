import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { parseDuration } from "../core/duration.js";
import { isPlainObject } from "../core/json.js";
import { adminErrors } from "./errors.js";
import type { AdminRoutes } from "./index.js";

/** `GET /_mock/clock`, `POST /_mock/clock {"advance": "5m"} | {"set": "<ISO>"}`. */
export function clockRoutes(ctx: MockContext, on: AdminRoutes): void {
  const describe = () => ({ now: formatTimestamp(ctx.clock.now()), mode: ctx.clock.mode, auto_advance: ctx.clock.autoAdvance, lifecycle: ctx.lifecycle });
  on.get("/clock", (_req, res) => {
    res.json(describe());
  });
  on.post("/clock", (req, res) => {
    const body: unknown = req.body;
    if (!isPlainObject(body) || (body.advance === undefined) === (body.set === undefined)) {
      throw adminErrors.badRequest('Send {"advance": "<duration, e.g. 5m or 1500ms>"} or {"set": "<ISO instant>"}');
    }
    if (body.advance !== undefined) {
      const ms = parseDuration(body.advance);
      if (ms === undefined) throw adminErrors.badRequest(`advance must be a duration such as "250ms", "5s", "5m", "1h" or a number of milliseconds; got ${JSON.stringify(body.advance)}`);
      try {
        ctx.clock.advance(ms);
      } catch (err) {
        if (err instanceof RangeError) throw adminErrors.badRequest(err.message);
        throw err;
      }
    } else {
      const ms = typeof body.set === "string" ? Date.parse(body.set) : NaN;
      if (Number.isNaN(ms)) throw adminErrors.badRequest(`set must be an ISO 8601 instant; got ${JSON.stringify(body.set)}`);
      ctx.clock.set(ms);
    }
    res.json(describe());
  });
}
