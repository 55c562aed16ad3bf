import { HttpError, detailError } from "../http/http-error.js";
import type { BodyProblem } from "../http/json-body.js";

const STATUS_PHRASES: Record<number, string> = {
  400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
  408: "Request Timeout", 409: "Conflict", 410: "Gone", 413: "Request Entity Too Large", 422: "Unprocessable Entity",
  429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
};

/**
 * Every error the agent server answers with, as the real (Python) server shapes them:
 * `{"detail": "<text>"}` (runs-and-feedback-notes §A3, §A8). Texts marked [real] come from the real
 * server; the others are the mock's choice, recorded in docs/decisions/agent-server.md.
 */
export const agentErrors = {
  /** [real] the LangSmith auth backend answers 403, not 401. */
  missingAuth: () => detailError(403, "Missing authentication headers"),
  /** [real] */
  invalidToken: () => detailError(403, "Invalid token"),
  badBody: (problem: BodyProblem): HttpError =>
    problem.kind === "too_large" ? detailError(413, "Request Entity Too Large") : detailError(422, `Invalid JSON body: ${problem.message}`),
  /** [real: the server reports the first jsonschema error as one string] */
  invalidBody: (message: string) => detailError(422, message),
  /** [real] */
  invalidThreadId: () => detailError(422, "Invalid thread ID"),
  /** [real] thread or assistant of a run route does not exist. */
  threadOrAssistantNotFound: () => detailError(404, "Thread or assistant not found."),
  /** [real] an assistant id that is neither a UUID nor a graph name. */
  invalidAssistant: (id: string, graphs: readonly string[]) =>
    detailError(422, `Invalid assistant: '${id}'. Must be either:\n- A valid assistant UUID, or\n- One of the registered graphs: ${graphs.join(", ")}`),
  invalidRunId: () => detailError(422, "Invalid run ID"),
  invalidAssistantId: () => detailError(422, "Invalid assistant ID: must be a UUID"),
  /** [real: Starlette's phrase for an HTTPException without detail] */
  notFound: () => detailError(404, "Not Found"),
  /** [real] */
  threadExists: () => detailError(409, "Thread already exists"),
  /** [real] */
  threadBusy: () => detailError(409, "Thread is already running a task. Wait for it to finish or choose a different multitask strategy."),
  /** [real] */
  resumeWithoutThread: () => detailError(400, "You must provide a thread_id when resuming."),
  /** The mock's own: no scenario scripts this run. Lists each scenario and why it did not match. */
  noScenario: (what: string, reasons: readonly string[]) =>
    detailError(
      422,
      `No scenario matches this run (${what}).` +
        (reasons.length ? ` Why each loaded scenario did not match:\n${reasons.map((r) => `- ${r}`).join("\n")}` : " No scenarios are loaded: pass `scenarios` (or --scenarios) or POST /_mock/scenarios."),
    ),
  /** The mock's own: a template of the scenario has no value in this run. */
  templateFailed: (scenario: string, reason: string) => detailError(422, `Scenario '${scenario}' cannot be played for this run: ${reason}`),
  /** A scenario's `http` ending: the refusal it scripts. */
  scripted: (status: number, detail: unknown) => new HttpError(status, { detail: detail === undefined ? (STATUS_PHRASES[status] ?? "Error") : detail }),
};
