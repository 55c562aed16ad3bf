import { HttpError, detailError } from "../http/http-error.js";
import type { BodyProblem } from "../http/json-body.js";
import { toPydanticIssues } from "../http/pydantic-issues.js";
import type { RequestProblem } from "../http/service-module.js";
import { ControlError } from "../control-error.js";
import { schemas } from "../schemas/registry.js";

/**
 * Errors of the mock's own admin API (/_mock). They use the same `{"detail": …}` shape as the
 * simulated services so one client helper reads both; `detail` always says what to send instead.
 */
export const adminErrors = {
  unauthorized: () => detailError(401, "Admin token required: send Authorization: Bearer <admin token>"),
  badBody: (problem: BodyProblem) =>
    problem.kind === "too_large"
      ? detailError(413, "Request Entity Too Large")
      : problem.kind === "too_deep"
        ? detailError(422, `Request body refused: ${problem.message}`)
        : detailError(400, `Request body is not valid JSON: ${problem.message}`),
  /**
   * A request that fails its schemas: a path or query value is a 400 sentence naming the parameter and
   * what was sent (an unknown filter names the known ones); a body is FastAPI's 422 list.
   */
  invalid: (problems: readonly RequestProblem[]): HttpError => {
    const first = problems[0] as RequestProblem;
    if (first.unknown) {
      const known = Object.keys(schemas().resolve(first.schema).properties ?? {});
      return detailError(400, `unknown query parameter ${first.unknown.map((k) => JSON.stringify(k)).join(", ")}; the parameters are ${known.map((k) => JSON.stringify(k)).join(", ") || "none"}`);
    }
    if (first.part === "body") return new HttpError(422, { detail: problems.flatMap((p) => (p.missing ? [] : toPydanticIssues(p.errors, "body", p.data))) });
    const issue = toPydanticIssues(first.errors, first.part, first.data)[0];
    if (!issue) return detailError(400, "Invalid request");
    const name = issue.loc.slice(1).join(".");
    if (issue.type === "uuid_parsing") return detailError(400, `${name} must be a UUID; got ${JSON.stringify(issue.input)}`);
    return detailError(400, `${name}: ${issue.msg}; got ${JSON.stringify(issue.input)}`);
  },
  /** What the control surface refused, with its status and words. */
  fromControl: (err: unknown): unknown => (err instanceof ControlError ? new HttpError(err.status, { detail: err.detail }) : err),
  /** Another web page's request (DESIGN §11); `corsOrigins` allows an origin. */
  forbiddenOrigin: (origin: string) => detailError(403, `Requests from origin ${origin} may not use the admin API; allow it with --cors-origin ${origin}`),
  /** A state change whose body a plain web form could have sent. */
  unsupportedType: (contentType: string, accepted: string) =>
    detailError(415, `Content-Type must be ${accepted} for admin requests that change state; got ${JSON.stringify(contentType || "(none)")}`),
};
