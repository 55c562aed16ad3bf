import type { MockContext } from "../context.js";
import { isPlainObject } from "../core/json.js";
import { detailError, HttpError } from "../http/http-error.js";
import type { BodyProblem } from "../http/json-body.js";
import { route, sse, type RouteSpec } from "../http/route.js";
import type { RequestProblem } from "../http/service-module.js";
import type { ProtocolCommand, ProtocolEvent, ProtocolEventStreamRequest } from "../schemas/types.gen.js";
import { agentErrors } from "./errors.js";
import { ProtocolCommands } from "./protocol-commands.js";
import { protocolSessions } from "./protocol-session.js";
import { headers, RUN_HEADERS, THREAD_PATH } from "./route-schemas.js";
import type { RunService } from "./runs.js";

const PROTOCOL = "agent-server/protocol.json#/$defs/";

/**
 * `POST /threads/{thread_id}/commands` and `POST /threads/{thread_id}/stream/events`: Protocol v2 over
 * HTTP (commands) and SSE (events). Neither answers 404 for a thread that does not exist yet: the
 * protocol creates the thread on the first `run.start`, and an event stream may be opened before it
 * (docs/decisions/agent-server.md "Protocol v2").
 */
export function protocolRoutes(ctx: MockContext, runs: RunService): RouteSpec[] {
  const sessions = protocolSessions(ctx);
  const commands = new ProtocolCommands(ctx, runs, sessions);
  return [
    route<{ params: { thread_id: string }; headers: Record<string, unknown>; body: ProtocolCommand }>({
      name: "protocol.thread_command",
      method: "POST",
      path: "/threads/{thread_id}/commands",
      params: THREAD_PATH,
      headers: RUN_HEADERS,
      body: `${PROTOCOL}ProtocolCommand`,
      // [real: the document] a malformed envelope is a 400 ProtocolError, not the agent server's 422.
      invalid: (problems) => (problems.some((p) => p.part === "path") ? agentErrors.invalidRequest(problems) : malformedCommand(problems.find((p) => p.part === "body"))),
      bodyError: (problem) => (problem.kind === "malformed" ? new HttpError(400, envelopeError(null, "Protocol commands must be valid JSON.")) : agentErrors.badBody(problem)),
      responses: { 200: `${PROTOCOL}ProtocolCommandResponse`, 400: `${PROTOCOL}ProtocolError` },
      handler: ({ params, headers, body, scope }) => commands.handle(body, { threadId: params.thread_id, request: scope, headers }),
    }),
    route<{ params: { thread_id: string }; headers: { "last-event-id"?: string }; body: ProtocolEventStreamRequest }>({
      name: "protocol.thread_events",
      method: "POST",
      path: "/threads/{thread_id}/stream/events",
      params: THREAD_PATH,
      headers: headers({ "last-event-id": { type: "string" } }),
      body: `${PROTOCOL}ProtocolEventStreamRequest`,
      // [real: the document] an invalid filter is a 400 ErrorResponse (`{detail}`).
      invalid: (problems) => {
        const error = agentErrors.invalidRequest(problems);
        return problems.some((p) => p.part === "path") ? error : new HttpError(400, error.body);
      },
      bodyError: (problem: BodyProblem) => (problem.kind === "malformed" ? detailError(400, `Invalid JSON body: ${problem.message}`) : agentErrors.badBody(problem)),
      responses: { 200: { sse: { data: `${PROTOCOL}ProtocolEvent` } }, 400: "common/errors.json#/$defs/HTTPError" },
      handler: ({ params, headers, body }) =>
        sse(
          (writer) =>
            sessions.attach(
              params.thread_id,
              { channels: new Set(body.channels), ...(body.namespaces ? { namespaces: body.namespaces } : {}), ...(body.depth !== undefined ? { depth: body.depth } : {}) },
              resumeAfter(body.since, headers["last-event-id"]),
              (event) => writer.event(protocolFrame(event)),
            ),
          { stallMs: ctx.options.streamStallMs },
        ),
    }),
  ];
}

/** `since` or `Last-Event-ID`, both the last seq the client saw; the higher wins. An id that is not a seq is ignored. */
function resumeAfter(since: number | undefined, lastEventId: string | undefined): number | undefined {
  const header = lastEventId !== undefined && /^\s*\d+\s*$/.test(lastEventId) ? Number(lastEventId) : undefined;
  if (since === undefined) return header;
  return header === undefined ? since : Math.max(since, header);
}

/** One frame as the document shows it: `id:` (the seq), `event:` (the method), `data:` (the event), CRLF as sse-starlette writes. */
export function protocolFrame(event: ProtocolEvent): string {
  return `id: ${event.event_id}\r\nevent: ${event.method}\r\ndata: ${JSON.stringify(event)}\r\n\r\n`;
}

/** A command envelope's `id` when it has a valid one (echoed in the error), else null. */
function envelopeId(body: unknown): number | null {
  const id = isPlainObject(body) ? body.id : undefined;
  return typeof id === "number" && Number.isInteger(id) && id >= 0 ? id : null;
}

function envelopeError(id: number | null, message: string) {
  return { type: "error", id, error: "invalid_argument", message };
}

/** The 400 ProtocolError for an envelope that fails its schema (the JS server's texts). */
function malformedCommand(problem: RequestProblem | undefined): HttpError {
  const body = problem?.data;
  const id = envelopeId(body);
  const method = isPlainObject(body) ? body.method : undefined;
  const message = id === null || typeof method !== "string" ? "Protocol commands must include an integer id and string method." : "Protocol command params must be an object.";
  return new HttpError(400, envelopeError(id, message));
}
