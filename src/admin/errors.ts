import { HttpError, detailError } from "../http/http-error.js";
import type { BodyProblem } from "../http/json-body.js";

/**
 * Errors of the mock's own admin API (/_mock). They use the same `{"detail": …}` shape as the
 * simulated services so one client helper reads both; `detail` always says what to send instead.
 */
export const adminErrors = {
  unauthorized: () => detailError(401, "Admin token required: send Authorization: Bearer <admin token>"),
  badBody: (problem: BodyProblem) =>
    problem.kind === "too_large" ? detailError(413, "Request Entity Too Large") : detailError(400, `Request body is not valid JSON: ${problem.message}`),
  badRequest: (detail: string) => detailError(400, detail),
  notFound: (what: string) => detailError(404, `${what} not found`),
  /** The request is fine but the state does not allow it (e.g. no deployment revision in flight to advance). */
  conflict: (detail: string) => detailError(409, detail),
  invalid: (detail: unknown) => new HttpError(422, { detail }),
};
