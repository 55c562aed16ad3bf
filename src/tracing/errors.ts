import { HttpError, detailError, validationError, type ValidationIssue } from "../http/http-error.js";
import { MAX_INSTANT, MIN_INSTANT } from "../core/clock.js";
import { fastApiBodyError, type BodyProblem } from "../http/json-body.js";

/**
 * Every error the tracing service (LangSmith, `/api/v1`) answers with, in its FastAPI shape. Texts
 * marked [real] were seen from the real service; the others are the mock's choice where the real text
 * is unknown (DESIGN §2, docs/decisions/tracing.md).
 */
export const tracingErrors = {
  /** Missing or wrong X-Api-Key on the API-key routes. [real] */
  invalidToken: () => detailError(401, "Invalid token"),
  /** Body that is not JSON (422 json_invalid) or too large (413). [real shape] */
  badBody: (problem: BodyProblem): HttpError => fastApiBodyError(problem),

  // Presigned token URLs (DESIGN §2)
  tokenNotFound: () => detailError(404, "Feedback token not found"),
  tokenExpired: () => detailError(404, "Feedback token expired"),
  /**
   * A token expiry no timestamp can hold (the real service fails on the datetime overflow): FastAPI's
   * 422 value error at the field, so nothing is stored and the client is told which value to change.
   */
  expiryIssue: (loc: (string | number)[], input: unknown): ValidationIssue => {
    const error = `the expiry must fall between ${new Date(MIN_INSTANT).toISOString()} and ${new Date(MAX_INSTANT).toISOString()}`;
    return { type: "value_error", loc, msg: `Value error, ${error}`, input, ctx: { error } };
  },
  expiryOutOfRange: (issues: ValidationIssue[]): HttpError => validationError(issues),

  // Feedback records
  feedbackNotFound: () => detailError(404, "Feedback not found"),
  feedbackExists: (feedbackId: string) => detailError(409, `Feedback ${feedbackId} already exists`),

  // Feedback configs and formulas
  feedbackConfigExists: (key: string) => detailError(409, `Feedback config for key '${key}' already exists`),
  feedbackConfigNotFound: (key: string) => detailError(404, `Feedback config for key '${key}' not found`),
  feedbackFormulaNotFound: () => detailError(404, "Feedback formula not found"),

  // Traced runs and projects (docs/decisions/tracing.md)
  runNotFound: () => detailError(404, "Run not found"),
  runExists: (runId: string) => detailError(409, `Run ${runId} already exists`),
  sessionNotFound: () => detailError(404, "Session not found"),
  sessionExists: (name: string) => detailError(409, `Session with name ${name} already exists`),
  badFilter: (why: string) => detailError(400, `Invalid filter: ${why}`),
  /** A multipart body that cannot be read as one. [real text: Starlette's] */
  badMultipart: () => detailError(400, "There was an error parsing the body"),
  badPart: (why: string) => detailError(422, why),
  /**
   * A run's `start_time` or `end_time` that is no time a timestamp can hold: pydantic's datetime 422 at
   * the field, for the whole request, so that nothing of it is stored (docs/decisions/tracing.md).
   */
  runTimeIssue: (loc: (string | number)[], input: unknown): ValidationIssue => {
    const error = `expected ISO 8601 text or epoch milliseconds from ${new Date(MIN_INSTANT).toISOString()} to ${new Date(MAX_INSTANT).toISOString()}`;
    return { type: "datetime_parsing", loc, msg: `Input should be a valid datetime, ${error}`, input, ctx: { error } };
  },
  runTimesInvalid: (issues: ValidationIssue[]): HttpError => validationError(issues),
};
