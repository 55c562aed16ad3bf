import { getOwn, isPlainObject, setOwn } from "../core/json.js";
import type { GraphChannelReducer } from "../schemas/types.gen.js";

/**
 * LangGraph's channel reducers, applied to JSON state the way a graph applies node writes: `messages`
 * through `add_messages` (langgraph/graph/message.py), `append` as `operator.add` on lists, and
 * last-value for every other channel (docs/agent-server.md "State model").
 */
export type ReducerName = GraphChannelReducer;

/** Each channel's reducer, by name; a channel not named is last-value. */
export type Channels = Readonly<Record<string, ReducerName | undefined>>;

/** What a graph gets when its fixture declares no channels: LangGraph's `MessagesState`. */
export const DEFAULT_CHANNELS: Channels = Object.freeze({ messages: "add_messages" });

/**
 * The state of a thread no run has written: each list channel (`add_messages`, `append`) at its
 * empty value, as LangGraph's BinaryOperatorAggregate channels start (`messages: []`).
 */
export function emptyState(channels: Channels): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(channels)) if (channels[key] === "add_messages" || channels[key] === "append") setOwn(out, key, []);
  return out;
}

/** A reducer refusing a write, with the Python exception's name (the run fails with it, as there). */
export class ReducerError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
    // What the run's `error` event names.
    this.name = error;
  }
}

/** add_messages' id that removes every message before it (`REMOVE_ALL_MESSAGES`). */
const REMOVE_ALL = "__remove_all__";

/** langchain_core's message types by the `role`/`type` a dict may give (`_create_message_from_message_type`). */
const TYPES: Record<string, string> = {
  human: "human",
  user: "human",
  ai: "ai",
  assistant: "ai",
  system: "system",
  developer: "system",
  function: "function",
  tool: "tool",
  remove: "remove",
  // message_chunk_to_message: a chunk is stored as its message.
  HumanMessageChunk: "human",
  AIMessageChunk: "ai",
  SystemMessageChunk: "system",
  ToolMessageChunk: "tool",
  FunctionMessageChunk: "function",
};

/** Fields each message type has after its common ones, with their defaults, in `model_dump()` order. */
const FIELDS: Record<string, Record<string, unknown>> = {
  human: {},
  system: {},
  function: {},
  remove: {},
  ai: { tool_calls: [], invalid_tool_calls: [], usage_metadata: null },
  tool: { tool_call_id: null, artifact: null, status: "success" },
};

/** Only chunks have these: a chunk stored as a message drops them. */
const CHUNK_ONLY = new Set(["tool_call_chunks", "chunk_position"]);

/**
 * A message as add_messages stores it (`convert_to_messages` then `message_chunk_to_message`): a
 * string is a human message, `[role, content]` a message of that role, a dict with `role` or `type`
 * that message; every one gets its type's fields and an id (`newId`, LangGraph's uuid4).
 */
export function toMessage(m: unknown, newId: () => string): Record<string, unknown> {
  if (typeof m === "string") return build("human", m, {}, newId);
  if (Array.isArray(m) && m.length === 2 && typeof m[0] === "string") return build(typeOf(m[0]), m[1], {}, newId);
  if (!isPlainObject(m)) throw new ReducerError("NotImplementedError", `Unsupported message type: ${m === null ? "NoneType" : typeof m}`);
  const kind = typeof m.role === "string" ? m.role : typeof m.type === "string" ? m.type : undefined;
  if (kind === undefined) throw new ReducerError("ValueError", `Message dict must contain 'role' and 'content' keys, got ${JSON.stringify(m)}`);
  return build(typeOf(kind), getOwn(m, "content"), m, newId);
}

function typeOf(kind: string): string {
  const type = TYPES[kind];
  if (type === undefined) {
    throw new ReducerError("ValueError", `Unexpected message type: '${kind}'. Use one of 'human', 'user', 'ai', 'assistant', 'function', 'tool', 'system', or 'developer'.`);
  }
  return type;
}

function build(type: string, content: unknown, given: Record<string, unknown>, newId: () => string): Record<string, unknown> {
  const message: Record<string, unknown> = {
    // As there, a null content is stored as "".
    content: content === undefined || content === null ? "" : content,
    additional_kwargs: isPlainObject(given.additional_kwargs) ? given.additional_kwargs : {},
    response_metadata: isPlainObject(given.response_metadata) ? given.response_metadata : {},
    type,
    name: given.name ?? null,
    id: typeof given.id === "string" && given.id ? given.id : newId(),
  };
  const own = FIELDS[type] ?? {};
  for (const key of Object.keys(own)) setOwn(message, key, Object.hasOwn(given, key) ? given[key] : own[key]);
  // Anything else the dict held (`example`, a recording's extra keys) is kept as it was.
  for (const key of Object.keys(given)) {
    if (key === "role" || CHUNK_ONLY.has(key) || Object.hasOwn(message, key)) continue;
    setOwn(message, key, given[key]);
  }
  return message;
}

/**
 * `add_messages(left, right)`: both sides made messages with ids; a message whose id is already
 * there replaces it in place, a `remove` message deletes it (an unknown id is LangGraph's
 * ValueError), `remove` with id `__remove_all__` keeps only what follows it; the rest is appended.
 */
export function addMessages(left: unknown, right: unknown, newId: () => string): Record<string, unknown>[] {
  const before = (left === undefined || left === null ? [] : Array.isArray(left) ? left : [left]).map((m) => toMessage(m, newId));
  const added = (Array.isArray(right) ? right : [right]).map((m) => toMessage(m, newId));
  const removeAll = added.findLastIndex((m) => m.type === "remove" && m.id === REMOVE_ALL);
  if (removeAll >= 0) return added.slice(removeAll + 1);
  const merged = [...before];
  const at = new Map(merged.map((m, i) => [m.id as string, i]));
  const removed = new Set<string>();
  for (const m of added) {
    const id = m.id as string;
    const existing = at.get(id);
    if (existing !== undefined) {
      if (m.type === "remove") removed.add(id);
      else {
        removed.delete(id);
        merged[existing] = m;
      }
    } else {
      if (m.type === "remove") throw new ReducerError("ValueError", `Attempting to delete a message with an ID that doesn't exist ('${id}')`);
      at.set(id, merged.length);
      merged.push(m);
    }
  }
  return merged.filter((m) => !removed.has(m.id as string));
}

/** `operator.add` on a list channel (its empty value is `[]`): Python's TypeError for anything but a list. */
export function appendList(left: unknown, right: unknown): unknown[] {
  const base = left === undefined || left === null ? [] : left;
  if (!Array.isArray(base) || !Array.isArray(right)) {
    throw new ReducerError("TypeError", `can only concatenate list (not "${pythonType(Array.isArray(base) ? right : base)}") to list`);
  }
  return [...base, ...right];
}

function pythonType(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return Array.isArray(value) ? "list" : "dict";
}

/**
 * The state after one step: each write (`{channel: value}`, one per node that ran) applied in order
 * through its channel's reducer. As LangGraph's LastValue channel, a last-value channel written twice
 * in one step is an InvalidUpdateError. Returns a new object; `state` is left as it was.
 */
export function applyWrites(state: Record<string, unknown> | null, writes: readonly unknown[], channels: Channels, newId: () => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(state ?? {})) setOwn(out, key, (state as Record<string, unknown>)[key]);
  const written = new Set<string>();
  for (const write of writes) {
    if (!isPlainObject(write)) continue;
    for (const key of Object.keys(write)) {
      const reducer = Object.hasOwn(channels, key) ? channels[key] : "last_value";
      const value = write[key];
      // A node returning None for its messages leaves them as they are.
      if (reducer === "add_messages") {
        if (value !== null && value !== undefined) setOwn(out, key, addMessages(getOwn(out, key), value, newId));
      }
      else if (reducer === "append") setOwn(out, key, appendList(getOwn(out, key), value));
      else {
        if (written.has(key)) throw new ReducerError("InvalidUpdateError", `At key '${key}': Can receive only one value per step. Use an Annotated key to handle multiple values.`);
        written.add(key);
        setOwn(out, key, value);
      }
    }
  }
  return out;
}

/**
 * A node's write with its messages made message objects with ids (what the node's returned messages
 * are once LangGraph has them: the `updates` and `messages` streams show them so, ids and all).
 */
export function normalizeWrite(write: unknown, channels: Channels, newId: () => string): unknown {
  if (!isPlainObject(write)) return write;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(write)) {
    const value = write[key];
    const messages = Object.hasOwn(channels, key) && channels[key] === "add_messages";
    setOwn(out, key, !messages || value === null ? value : Array.isArray(value) ? value.map((m) => toMessage(m, newId)) : toMessage(value, newId));
  }
  return out;
}
