import { formatTimestamp } from "../core/clock.js";
import { isPlainObject, setOwn } from "../core/json.js";
import { isUuid } from "../core/random.js";
import type { MockContext } from "../context.js";
import type { Outcome } from "./run-execution.js";
import type { RunRecord, RunStatus } from "./runs.js";

/**
 * The A2A protocol (0.3, JSON-RPC binding) as the real agent server maps it onto LangGraph: a
 * message becomes a run's input, `contextId` is the thread, a task is a run. Pure mapping, no routes.
 */

/** An A2A problem the endpoint answers as a JSON-RPC error (with HTTP 200, as the real document shows). */
export class A2aError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A2A's own error codes (A2A specification §8.2). */
export const A2A_CODES = { taskNotFound: -32001, unsupportedOperation: -32004 } as const;

export type A2aState = "submitted" | "working" | "input-required" | "completed" | "canceled" | "failed";

export interface A2aMessageParams {
  text: string[];
  data: Record<string, unknown>;
  messageId: string;
  contextId?: string;
  taskId?: string;
}

/** Reads `params.message` of message/send and message/stream; throws A2aError -32602 for a bad one. */
export function readMessage(params: unknown): A2aMessageParams {
  const invalid = (why: string) => new A2aError(-32602, `Invalid request: ${why}`);
  if (!isPlainObject(params) || !isPlainObject(params.message)) throw invalid("Missing required parameter: message");
  const m = params.message;
  if (m.role !== "user" && m.role !== "agent") throw invalid("message.role must be 'user' or 'agent'");
  if (typeof m.messageId !== "string") throw invalid("Missing required parameter: message.messageId");
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw invalid("message.parts must be a non-empty array");
  const text: string[] = [];
  const data: Record<string, unknown> = {};
  for (const part of m.parts) {
    if (isPlainObject(part) && part.kind === "text" && typeof part.text === "string") text.push(part.text);
    else if (isPlainObject(part) && part.kind === "data" && isPlainObject(part.data)) for (const [k, v] of Object.entries(part.data)) setOwn(data, k, v);
    else if (isPlainObject(part) && part.kind === "file") throw invalid("file parts are not supported; send text or data parts");
    else throw invalid("each part must be a text part ({kind: 'text', text}) or a data part ({kind: 'data', data})");
  }
  for (const key of ["contextId", "taskId"] as const) {
    if (m[key] !== undefined && typeof m[key] !== "string") throw invalid(`message.${key} must be a string`);
  }
  const contextId = m.contextId as string | undefined;
  // contextId is the thread id, and thread ids are UUIDs.
  if (contextId !== undefined && !isUuid(contextId)) throw invalid(`contextId must be a thread UUID, got '${contextId}'`);
  return { text, data, messageId: m.messageId, contextId: contextId?.toLowerCase(), taskId: m.taskId as string | undefined };
}

/** Reads tasks/get and tasks/cancel params: `id` (the run) and `contextId` (its thread). */
export function readTaskParams(params: unknown): { id: string; contextId: string; historyLength?: number } {
  const invalid = (why: string) => new A2aError(-32602, `Invalid request: ${why}`);
  if (!isPlainObject(params)) throw invalid("Missing required parameter: id");
  if (typeof params.id !== "string") throw invalid("Missing required parameter: id");
  if (typeof params.contextId !== "string") throw invalid("Missing required parameter: contextId");
  const h = params.historyLength;
  if (h !== undefined && !(Number.isInteger(h) && (h as number) >= 0 && (h as number) <= 10)) throw invalid("historyLength must be an integer from 0 to 10");
  return { id: params.id.toLowerCase(), contextId: params.contextId.toLowerCase(), historyLength: h as number | undefined };
}

/**
 * The run input of a message: text parts become one user message (the assistant's input needs a
 * `messages` field), data parts are merged into the input.
 */
export function messageInput(m: A2aMessageParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (m.text.length) setOwn(input, "messages", [{ role: "user", content: m.text.join("\n") }]);
  for (const [k, v] of Object.entries(m.data)) setOwn(input, k, v);
  return input;
}

/** The resume value of a message answering an interrupt: a data part's `resume`, else its text. */
export function resumeValue(m: A2aMessageParams): unknown {
  return Object.hasOwn(m.data, "resume") ? m.data.resume : m.text.join("\n");
}

const STATES: Record<RunStatus, A2aState> = {
  pending: "submitted",
  running: "working",
  success: "completed",
  error: "failed",
  timeout: "failed",
  interrupted: "canceled",
};

/** The task state of a run; a successful run that stopped at an interrupt waits for input. */
export function runState(run: RunRecord, threadInterrupted: boolean): A2aState {
  if (run.status === "success" && threadInterrupted) return "input-required";
  return STATES[run.status];
}

/** The task state an execution's outcome gives. */
export function outcomeState(outcome: Outcome): A2aState {
  switch (outcome.kind) {
    case "success":
      return outcome.interrupt ? "input-required" : "completed";
    case "cancelled":
      return "canceled";
    default:
      return "failed";
  }
}

/** The text of a LangChain message's content (a string, or text blocks). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((b) => (isPlainObject(b) && typeof b.text === "string" ? b.text : "")).join("");
  return content === undefined ? "" : JSON.stringify(content);
}

function isAiMessage(m: unknown): m is Record<string, unknown> {
  return isPlainObject(m) && (m.type === "ai" || m.role === "assistant" || m.role === "ai");
}

/** The A2A parts of a run's final values: the last AI message as text, else the values as data. */
export function resultParts(values: Record<string, unknown> | null): Record<string, unknown>[] {
  const messages = Array.isArray(values?.messages) ? values.messages : [];
  const last = [...messages].reverse().find(isAiMessage);
  if (last) return [{ kind: "text", text: contentText(last.content) }];
  return [{ kind: "data", data: values ?? {} }];
}

/** The thread's messages as A2A history (user and agent messages, the last `length`). */
export function history(values: Record<string, unknown> | null, taskId: string, contextId: string, length: number): Record<string, unknown>[] {
  const messages = (Array.isArray(values?.messages) ? values.messages : []).filter(isPlainObject);
  const tail = length === 0 ? [] : messages.slice(-length);
  return tail.map((m, i) => ({
    kind: "message",
    role: isAiMessage(m) ? "agent" : "user",
    messageId: typeof m.id === "string" ? m.id : `${taskId}-${messages.length - tail.length + i}`,
    parts: [{ kind: "text", text: contentText(m.content) }],
    taskId,
    contextId,
  }));
}

/** The agent message a task status carries: the interrupt's question, or the error. */
function statusMessage(ctx: MockContext, taskId: string, contextId: string, text: string) {
  return { kind: "message", role: "agent", messageId: ctx.random.uuid4(), parts: [{ kind: "text", text }], taskId, contextId };
}

/** A task's status object for a finished run. */
export function finishedStatus(ctx: MockContext, run: RunRecord, outcome: Outcome) {
  const state = outcomeState(outcome);
  const status: Record<string, unknown> = { state, timestamp: formatTimestamp(ctx.clock.now()) };
  if (outcome.kind === "success" && outcome.interrupt) {
    const v = outcome.interrupt.value;
    status.message = statusMessage(ctx, run.run_id, run.thread_id, typeof v === "string" ? v : JSON.stringify(v));
  } else if (outcome.kind === "error") {
    status.message = statusMessage(ctx, run.run_id, run.thread_id, `${outcome.error.error}: ${outcome.error.message}`);
  }
  return status;
}

/** The artifact of a completed run (name as the real server's example). */
export function artifact(ctx: MockContext, values: Record<string, unknown> | null) {
  return { artifactId: ctx.random.uuid4(), name: "Assistant Response", parts: resultParts(values) };
}

/** The A2A Task of a finished run. */
export function finishedTask(ctx: MockContext, run: RunRecord, outcome: Outcome) {
  const status = finishedStatus(ctx, run, outcome);
  const task: Record<string, unknown> = { kind: "task", id: run.run_id, contextId: run.thread_id, status };
  if (status.state === "completed") task.artifacts = [artifact(ctx, outcome.values)];
  return task;
}
