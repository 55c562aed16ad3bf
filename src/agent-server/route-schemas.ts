import { object, UUID, type JsonSchema, type ResponseSpec } from "../http/route.js";

/** Schemas the agent server's route declarations share. */
export const THREAD = "agent-server/thread.json#/$defs/";
export const RUN = "agent-server/run.json#/$defs/";
export const ASSISTANT = "agent-server/assistant.json#/$defs/";

/** `{detail: "<text>"}`: every error the agent server answers with (errors.ts). */
export const ERROR = "common/errors.json#/$defs/HTTPError";

/** Path ids are UUIDs; a bad one is the real server's "Invalid thread ID" etc. (agentErrors.invalidRequest). */
export const THREAD_PATH = object({ thread_id: UUID });
export const RUN_PATH = object({ thread_id: UUID, run_id: UUID });

/** The error statuses a route answers with, each in the `{detail}` shape (routes spread it into their own `responses`). */
export function errors(...statuses: number[]): Record<number, ResponseSpec> {
  return Object.fromEntries(statuses.map((status) => [status, ERROR]));
}

/** Declared request headers (node lowercases names); none is required. */
export function headers(properties: Record<string, JsonSchema>): JsonSchema {
  return { type: "object", properties, required: [] };
}

/** Every header of a run-create: the real server copies `user-agent` and `x-*` into the run's configurable. */
export const RUN_HEADERS: JsonSchema = { type: "object", properties: { "user-agent": { type: "string" } }, patternProperties: { "^x-": { type: "string" } }, required: [] };

/** The run stream's own events (scenario events carry what their scenario says): checked like any answer. */
const RUN_EVENTS = {
  metadata: { type: "object", required: ["run_id", "attempt"], properties: { run_id: UUID, attempt: { type: "integer", minimum: 1 } }, additionalProperties: false },
  error: { type: "object", required: ["error", "message"], properties: { error: { type: "string" }, message: { type: "string" } }, additionalProperties: false },
  feedback: { type: "object", additionalProperties: { type: "string", format: "uri" } },
};

/** A run's event stream (`…/runs/stream`, a join). */
export const RUN_STREAM: ResponseSpec = { sse: { events: RUN_EVENTS } };

/** A thread's event stream: the runs' events, each run closed by `metadata {"status": "run_done", "run_id"}`. */
export const THREAD_STREAM: ResponseSpec = {
  sse: {
    events: {
      ...RUN_EVENTS,
      metadata: { oneOf: [RUN_EVENTS.metadata, { type: "object", required: ["status", "run_id"], properties: { status: { const: "run_done" }, run_id: UUID }, additionalProperties: false }] },
    },
  },
};
