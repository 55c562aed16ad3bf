import type { ErrorObject } from "ajv";
import { HttpError, detailError } from "../http/http-error.js";
import type { BodyProblem } from "../http/json-body.js";
import { toPydanticIssues } from "../http/pydantic-issues.js";
import type { RequestProblem } from "../http/service-module.js";

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
  /**
   * A request that fails its schemas. The real server checks path ids by hand and bodies with
   * jsonschema, answering with the first problem only, as one string.
   */
  invalidRequest: (problems: readonly RequestProblem[]): HttpError => {
    const first = problems[0] as RequestProblem;
    if (first.part === "path") {
      const name = String((first.errors.find((e) => e.instancePath) ?? first.errors[0])?.instancePath.slice(1) ?? "");
      const byName: Record<string, () => HttpError> = {
        thread_id: agentErrors.invalidThreadId,
        run_id: agentErrors.invalidRunId,
        assistant_id: agentErrors.invalidAssistantId,
        cron_id: agentErrors.invalidCronId,
        checkpoint_id: agentErrors.invalidCheckpointId,
      };
      return (byName[name] ?? (() => detailError(422, `Invalid ${name}`)))();
    }
    if (first.part === "body") return detailError(422, jsonschemaMessage(first.errors));
    const issue = toPydanticIssues(first.errors, first.part, first.data)[0];
    return detailError(422, issue ? `${issue.loc.slice(1).join(".")}: ${issue.msg}` : "Invalid query");
  },
  /** A store item's `ttl` that would expire it past the clock's last instant (the mock's text; nothing is stored). */
  storeTtlOutOfRange: (ttl: number) => detailError(422, `ttl ${ttl} minutes expires the item past the last instant the clock can hold; use null for an item that never expires`),
  /** [real] */
  invalidThreadId: () => detailError(422, "Invalid thread ID: must be a UUID"),
  /** [real] */
  invalidCronId: () => detailError(422, "Invalid cron ID: must be a UUID"),
  /** [real] a cron schedule croniter refuses (`Crons.put`). */
  invalidCronSchedule: (schedule: string) =>
    detailError(
      422,
      `Invalid cron schedule: '${schedule}'. Reason: Invalid cron schedule. Ensure the schedule uses the standard cron format (minute hour day_of_month month day_of_week). Example: '*/5 * * * *' for every 5 minutes.`,
    ),
  /** A cron `timezone` that is no IANA zone (the mock's text). */
  invalidTimezone: (timezone: string) => detailError(422, `Invalid timezone: '${timezone}'. Use an IANA timezone such as 'America/New_York'.`),
  /** [real] `POST /threads/{id}/runs/crons` on a thread that does not exist. */
  cronThreadNotFound: (threadId: string) =>
    detailError(404, `Thread with ID '${threadId}' not found. Please verify the ID is correct and the thread hasn't been deleted or expired.`),
  invalidCheckpointId: () => detailError(422, "Invalid checkpoint ID"),
  /** [real] thread or assistant of a run route does not exist. */
  threadOrAssistantNotFound: () => detailError(404, "Thread or assistant not found."),
  /** [real] an assistant id that is neither a UUID nor a graph name. */
  invalidAssistant: (id: string, graphs: readonly string[]) =>
    detailError(422, `Invalid assistant: '${id}'. Must be either:\n- A valid assistant UUID, or\n- One of the registered graphs: ${graphs.join(", ")}`),
  invalidRunId: () => detailError(422, "Invalid run ID: must be a UUID"),
  invalidAssistantId: () => detailError(422, "Invalid assistant ID: must be a UUID"),
  /** [real: Starlette's phrase for an HTTPException without detail] */
  notFound: () => detailError(404, "Not Found"),
  /** [real] `assert_graph_exists` (vendored `langgraph_api/graph.py`). */
  graphNotFound: (graphId: string, graphs: readonly string[]) =>
    detailError(404, `Graph '${graphId}' not found. Expected one of: [${[...graphs].sort().map((g) => `'${g}'`).join(", ")}]`),
  /** [real] `POST /assistants/{id}/versions` of an assistant with no version (vendored `api/assistants.py`). */
  assistantVersionsNotFound: (assistantId: string) => detailError(404, `Assistant ${assistantId} not found`),
  /** [real] `GET /assistants/{id}/graph?xray=` that is neither a boolean nor a positive integer. */
  invalidXray: () => detailError(422, "Invalid xray value"),
  /** [real] an assistant create or patch with both `config.configurable` and `context` (vendored `ops.py`). */
  configurableAndContext: () =>
    detailError(400, "Cannot specify both configurable and context. Prefer setting context alone. Context was introduced in LangGraph 0.6.0 and is the long term planned replacement for configurable."),
  /** [real: `POST /threads` with an existing id and `if_exists: raise` — `fetchone(…, not_found_code=409)` without detail] */
  threadExists: () => detailError(409, "Conflict"),
  /** [real: an HTTPException(409) without detail, e.g. copying a thread that does not exist] */
  conflict: () => detailError(409, "Conflict"),
  /** [real] `POST /threads/{id}/state` while a run is pending or running. */
  threadBusyForUpdate: () => detailError(409, "Thread is busy with a running job. Cannot update state."),
  /** [real] `POST /threads/{id}/state` on a thread no run has given a graph. */
  noGraphForThread: (threadId: string) =>
    detailError(
      400,
      `Thread '${threadId}' has no assigned graph ID. This usually occurs when no runs have been made on this particular thread. This operation requires a graph ID. Please ensure a run has been made for the thread or manually update the thread metadata (by setting the 'graph_id' field) before running this operation.`,
    ),
  /** [real] `GET /threads/{id}/stream` with an unknown `stream_modes` value. */
  invalidThreadStreamMode: (mode: string) => detailError(422, `Invalid stream mode: ${mode}`),
  /** [real] `GET /threads/{id}/stream` with a `Last-Event-ID` that is neither `-` nor `<ms>-<seq>`. */
  invalidStreamId: () => detailError(422, "Invalid last-event-id: must be a valid Redis stream ID"),
  /** [real] `POST /runs/cancel` that matches no run. */
  noRunsToCancel: () =>
    detailError(404, "No matching runs to cancel. Please verify the thread ID and run IDs are correct and the runs haven't been deleted or expired."),
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

/** The first jsonschema error as the Python `jsonschema` package words it. */
function jsonschemaMessage(errors: readonly ErrorObject[]): string {
  const e = errors.find((x) => x.keyword === "anyOf") ?? (errors[0] as ErrorObject);
  if (!e) return "Invalid request body";
  const value = JSON.stringify(e.data) ?? "null";
  const where = e.instancePath ? ` (at ${e.instancePath})` : "";
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `'${String(p.missingProperty)}' is a required property`;
    case "type":
      return `${value} is not of type "${String(p.type)}"${where}`;
    case "enum":
      return `${value} is not one of ${JSON.stringify(p.allowedValues)}${where}`;
    case "format":
      return `${value} is not a "${String(p.format)}"${where}`;
    case "anyOf":
      return `${value} is not valid under any of the given schemas${where}`;
    case "maxItems":
      // jsonschema's words, without quoting a list that may be megabytes long.
      return `${Array.isArray(e.data) ? e.data.length : "the"} items is too long: at most ${String(p.limit)} are allowed${where}`;
    default:
      return `${value} ${e.message ?? "is not valid"}${where}`;
  }
}
