import { isPlainObject, setOwn } from "../core/json.js";
import type { Channels } from "./reducers.js";

/**
 * The stream events LangGraph sends for one graph step, for the modes a scenario turn does not script
 * (docs/scenarios.md "Derived stream modes"): `messages` tuples and the legacy `messages/*` events for
 * the messages a node writes, `updates` per node, `values` after the step.
 */
export interface DerivedEvent {
  event: string;
  data: unknown;
  /** The stream mode that asks for it. */
  mode: string;
}

/**
 * What a `messages` tuple's metadata says, as a node's callbacks see it: the run's metadata, then
 * LangGraph's task keys (`prepare_single_task`) and the task's `checkpoint_ns`.
 */
export function messageMetadata(base: Record<string, unknown>, taskId: string, step: number, node: string): Record<string, unknown> {
  const ns = `${node}:${taskId}`;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(base)) setOwn(out, key, base[key]);
  const task: Record<string, unknown> = {
    langgraph_step: step,
    langgraph_node: node,
    langgraph_triggers: [`branch:to:${node}`],
    langgraph_path: ["__pregel_pull", node],
    langgraph_checkpoint_ns: ns,
    checkpoint_ns: ns,
  };
  for (const key of Object.keys(task)) setOwn(out, key, task[key]);
  return out;
}

/**
 * The messages a node's write adds that the stream has not shown yet, as LangGraph's
 * StreamMessagesHandler emits a node's output: each message of a messages channel whose id is not
 * in `seen` (the node's input state and what was already streamed), whole. `seen` is updated.
 */
export function newMessages(write: unknown, channels: Channels, seen: Set<string>): Record<string, unknown>[] {
  if (!isPlainObject(write)) return [];
  const out: Record<string, unknown>[] = [];
  for (const key of Object.keys(write)) {
    if (!Object.hasOwn(channels, key) || channels[key] !== "add_messages") continue;
    const value = write[key];
    for (const m of Array.isArray(value) ? value : [value]) {
      if (!isPlainObject(m) || m.type === "remove" || typeof m.id !== "string" || seen.has(m.id)) continue;
      seen.add(m.id);
      out.push(m);
    }
  }
  return out;
}

/**
 * A message as the `messages-tuple` stream shows it (`[message, metadata]`) and as the legacy
 * `messages` mode does (the API server's conversion: `messages/metadata` the first time an id is
 * seen, then `messages/complete` with the whole message), for the modes in `modes`.
 */
export function messageEvents(message: Record<string, unknown>, metadata: Record<string, unknown>, modes: ReadonlySet<string>): DerivedEvent[] {
  const out: DerivedEvent[] = [];
  if (modes.has("messages-tuple")) out.push({ event: "messages", data: [message, metadata], mode: "messages-tuple" });
  if (modes.has("messages")) {
    const byId: Record<string, unknown> = {};
    setOwn(byId, message.id as string, { metadata });
    out.push({ event: "messages/metadata", data: byId, mode: "messages" });
    out.push({ event: "messages/complete", data: [message], mode: "messages" });
  }
  return out;
}

/**
 * An AI message streamed as a model streams its tokens, in `pieces` chunks (`chunks` of a step):
 * `messages-tuple` sends AIMessageChunk pieces with the message's id and the same metadata, whose
 * contents concatenated are the message's (its tool calls ride on the first); the legacy mode sends
 * `messages/metadata` once, then `messages/partial` with the message so far.
 */
export function chunkEvents(message: Record<string, unknown>, metadata: Record<string, unknown>, pieces: number, modes: ReadonlySet<string>): DerivedEvent[] {
  const parts = splitContent(typeof message.content === "string" ? message.content : "", pieces);
  const out: DerivedEvent[] = [];
  let sofar = "";
  parts.forEach((part, i) => {
    const chunk = aiChunk(message, part, i === 0);
    sofar += part;
    if (modes.has("messages-tuple")) out.push({ event: "messages", data: [chunk, metadata], mode: "messages-tuple" });
    if (modes.has("messages")) {
      if (i === 0) {
        const byId: Record<string, unknown> = {};
        setOwn(byId, message.id as string, { metadata });
        out.push({ event: "messages/metadata", data: byId, mode: "messages" });
      }
      out.push({ event: "messages/partial", data: [aiChunk(message, sofar, true)], mode: "messages" });
    }
  });
  return out;
}

/** An AIMessageChunk as langchain_core serializes it, with this content. */
function aiChunk(message: Record<string, unknown>, content: string, withCalls: boolean): Record<string, unknown> {
  const calls = withCalls && Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    content,
    additional_kwargs: message.additional_kwargs ?? {},
    response_metadata: message.response_metadata ?? {},
    type: "AIMessageChunk",
    name: message.name ?? null,
    id: message.id,
    tool_calls: calls,
    invalid_tool_calls: [],
    usage_metadata: null,
    tool_call_chunks: calls.map((c: Record<string, unknown>, index: number) => ({ name: c.name ?? null, args: JSON.stringify(c.args ?? {}), id: c.id ?? null, index, type: "tool_call_chunk" })),
  };
}

/** A text in `pieces` parts of about the same length (by code point), none empty unless the text is. */
export function splitContent(text: string, pieces: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(pieces, chars.length));
  const size = Math.ceil(chars.length / n);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

/** Message ids in the messages channels of a state. */
export function messageIds(state: Record<string, unknown> | null, channels: Channels): string[] {
  const ids: string[] = [];
  for (const key of Object.keys(state ?? {})) {
    if (channels[key] !== "add_messages" || !Object.hasOwn(channels, key)) continue;
    const list = (state as Record<string, unknown>)[key];
    for (const m of Array.isArray(list) ? list : []) if (isPlainObject(m) && typeof m.id === "string") ids.push(m.id);
  }
  return ids;
}
