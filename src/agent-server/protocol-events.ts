import { isPlainObject } from "../core/json.js";
import type { ProtocolNamespace } from "../schemas/types.gen.js";
import type { AgentStatus, ProtocolSession } from "./protocol-session.js";
import type { Frame, Outcome } from "./run-execution.js";

type Json = Record<string, unknown>;

/**
 * The stream modes a Protocol v2 run publishes, as the JS server asks for them
 * (`DEFAULT_RUN_STREAM_MODES`). The mock's scenarios script `messages` as tuples, so the tuple mode is
 * what carries them here.
 */
export const PROTOCOL_RUN_MODES = ["values", "updates", "messages-tuple", "tools", "custom", "tasks"];

/** A content block being streamed: text accumulates, a tool call chunk accumulates its argument text. */
interface OpenBlock {
  index: number;
  kind: "text" | "tool";
  text: string;
  id?: string | null;
  name?: string | null;
}

/** A message streamed as chunks, open until another message starts, another event comes or the run ends. */
interface OpenMessage {
  namespace: ProtocolNamespace;
  node: string | undefined;
  blocks: OpenBlock[];
  usage: unknown;
}

/**
 * Turns one run's stream parts (the scenario's events as the run publishes them) into protocol events
 * on the thread's session, as the JS server's run session and core's stream converters do:
 *
 * - `values`: the state without `__interrupt__`, its messages in the protocol's message shape; each
 *   new interrupt first becomes one `input.requested` event. An empty state is not sent.
 * - `updates`: `{node: delta}` → params.node and the delta as data; `__interrupt__` → `input.requested`.
 * - `messages` (tuples `[message, metadata]`): message-start, content-block-start/-delta/-finish and
 *   message-finish. Chunks of one message id stream as deltas; a complete message is sent whole.
 * - `tools` (`on_tool_start|event|end|error`) → tool-started, tool-output-delta, tool-finished, tool-error.
 * - `custom`: `{payload}`, or the object as it is when it has a `name`; `tasks` as they are.
 * - `lifecycle`: the root is `running` when the run is created and `completed`, `interrupted` or
 *   `failed` when it ends; a subgraph namespace is `started` when first seen and ends with the run.
 */
export class RunEventConverter {
  private readonly open = new Map<string, OpenMessage>();
  /** The id of the message open on each namespace (a chunk with another id starts a new one). */
  private readonly openId = new Map<string, string | undefined>();
  private readonly interruptIds = new Set<string>();
  private terminal = false;

  constructor(private readonly session: ProtocolSession) {}

  /** The run was created: its root is running (pushed before `/commands` answers, so `applied_through_seq` counts it). */
  started(): void {
    this.lifecycle([], "running");
  }

  frame(frame: Frame): void {
    const [method = "", ...namespace] = frame.event.split("|");
    if (method === "metadata" || method === "feedback") return;
    let data: unknown;
    try {
      data = JSON.parse(frame.data);
    } catch {
      return;
    }
    if (method !== "messages") this.finishMessages();
    if (method === "error") {
      this.endSubgraphs("failed");
      this.terminal = true;
      this.lifecycle([], "failed", { error: isPlainObject(data) && typeof data.message === "string" ? data.message : JSON.stringify(data) });
      return;
    }
    this.seeNamespaces(namespace);
    switch (method) {
      case "values":
        return this.values(namespace, data);
      case "updates":
        return this.updates(namespace, data);
      case "messages":
        return this.message(namespace, data);
      case "tools":
        this.session.push("tools", namespace, toolData(data));
        return;
      case "custom":
        this.session.push("custom", namespace, isPlainObject(data) && "name" in data ? data : { payload: data });
        return;
      case "tasks":
        this.session.push("tasks", namespace, data);
        return;
      default:
        return;
    }
  }

  /** The run is over: open messages finish, open subgraphs and the root get their terminal status. */
  end(outcome: Outcome | undefined): void {
    this.finishMessages();
    if (this.terminal || !outcome) return;
    this.terminal = true;
    let status: AgentStatus;
    let error: string | undefined;
    if (outcome.kind === "success") status = outcome.interrupt || this.interruptIds.size ? "interrupted" : "completed";
    else if (outcome.kind === "cancelled") status = "interrupted";
    else {
      status = "failed";
      error = outcome.kind === "error" ? outcome.error.message : "The scenario dropped the connection (end: disconnect)";
    }
    this.endSubgraphs(status === "failed" ? "failed" : status === "interrupted" ? "interrupted" : "completed");
    this.lifecycle([], status, error === undefined ? {} : { error });
  }

  private lifecycle(namespace: ProtocolNamespace, status: AgentStatus, extra: Json = {}): void {
    if (!this.session.setStatus(namespace, status) && !extra.error) return;
    this.session.push("lifecycle", namespace, { event: status, graph_name: this.session.graphName(namespace), ...extra });
  }

  /** Every prefix of a namespace not seen before starts (core's LifecycleTransformer announces subgraphs so). */
  private seeNamespaces(namespace: ProtocolNamespace): void {
    for (let length = 1; length <= namespace.length; length++) {
      const prefix = namespace.slice(0, length);
      if (!this.session.knows(prefix)) this.lifecycle(prefix, "started");
    }
  }

  private endSubgraphs(status: AgentStatus): void {
    for (const namespace of this.session.openSubgraphs()) this.lifecycle(namespace, status);
  }

  private values(namespace: ProtocolNamespace, data: unknown): void {
    if (isPlainObject(data) && "__interrupt__" in data) {
      this.interrupts(namespace, data.__interrupt__);
      const { __interrupt__: _, ...rest } = data;
      if (Object.keys(rest).length) this.session.push("values", namespace, normalizeState(rest));
      return;
    }
    if (isPlainObject(data) && !Object.keys(data).length) return;
    this.session.push("values", namespace, normalizeState(data));
  }

  private updates(namespace: ProtocolNamespace, data: unknown): void {
    if (!isPlainObject(data)) return;
    const [entry] = Object.entries(data);
    if (!entry) return;
    const [node, delta] = entry;
    if (node === "__interrupt__") return this.interrupts(namespace, delta);
    this.session.push("updates", namespace, normalizeState(isPlainObject(delta) ? delta : { value: delta }), node);
  }

  /** One `input.requested` per interrupt id, however many times the run reports it (updates and values). */
  private interrupts(namespace: ProtocolNamespace, list: unknown): void {
    if (!Array.isArray(list)) return;
    for (const entry of list) {
      if (!isPlainObject(entry) || typeof entry.id !== "string" || this.interruptIds.has(entry.id)) continue;
      this.interruptIds.add(entry.id);
      this.session.push("input.requested", namespace, { interrupt_id: entry.id, payload: entry.value });
    }
  }

  private message(namespace: ProtocolNamespace, data: unknown): void {
    const [message, metadata] = Array.isArray(data) ? data : [data, undefined];
    if (!isPlainObject(message)) return;
    const meta = isPlainObject(metadata) ? metadata : {};
    const node = typeof meta.langgraph_node === "string" ? meta.langgraph_node : undefined;
    const key = namespace.join("\0");
    const type = typeof message.type === "string" ? message.type : "ai";
    const id = typeof message.id === "string" ? message.id : undefined;
    const current = this.open.get(key);
    const streamed = type.endsWith("Chunk");
    // A chunk without an id continues the open message; a new id or a complete message closes it.
    if (current && (!streamed || (id !== undefined && this.openId.get(key) !== id))) this.finishMessage(key);
    if (!streamed) return this.wholeMessage(namespace, node, message, meta);

    let open = this.open.get(key);
    if (!open) {
      open = { namespace, node, blocks: [], usage: undefined };
      this.open.set(key, open);
      this.openId.set(key, id);
      this.emitMessage(open, { event: "message-start", role: roleOf(type), ...(id !== undefined ? { id } : {}), ...messageMetadata(meta) });
    }
    if (message.usage_metadata !== undefined) open.usage = message.usage_metadata;
    const text = textOf(message.content);
    if (text) {
      const block = this.block(open, "text", 0);
      block.text += text;
      this.emitMessage(open, { event: "content-block-delta", index: block.index, delta: { type: "text-delta", text } });
    }
    const chunks = Array.isArray(message.tool_call_chunks) ? message.tool_call_chunks : [];
    for (const chunk of chunks) {
      if (!isPlainObject(chunk)) continue;
      const index = 1 + (typeof chunk.index === "number" ? chunk.index : 0);
      const block = this.block(open, "tool", index, chunk);
      const args = typeof chunk.args === "string" ? chunk.args : "";
      block.text += args;
      this.emitMessage(open, { event: "content-block-delta", index: block.index, delta: { type: "tool-call-delta", args } });
    }
  }

  /** The open block at `index`, started (content-block-start) when new. */
  private block(open: OpenMessage, kind: OpenBlock["kind"], index: number, chunk?: Json): OpenBlock {
    let block = open.blocks.find((b) => b.index === index);
    if (block) return block;
    block = { index, kind, text: "", id: (chunk?.id as string | null | undefined) ?? null, name: (chunk?.name as string | null | undefined) ?? null };
    open.blocks.push(block);
    const content = kind === "text" ? { type: "text", text: "" } : { type: "tool_call_chunk", id: block.id, name: block.name, args: "" };
    this.emitMessage(open, { event: "content-block-start", index, content });
    return block;
  }

  private finishMessages(): void {
    for (const key of [...this.open.keys()]) this.finishMessage(key);
  }

  private finishMessage(key: string): void {
    const open = this.open.get(key);
    if (!open) return;
    this.open.delete(key);
    this.openId.delete(key);
    for (const block of open.blocks) {
      const content = block.kind === "text" ? { type: "text", text: block.text } : { type: "tool_call", id: block.id ?? null, name: block.name ?? "", args: parseArgs(block.text) };
      this.emitMessage(open, { event: "content-block-finish", index: block.index, content });
    }
    this.emitMessage(open, { event: "message-finish", ...(open.usage !== undefined ? { usage: open.usage } : {}) });
  }

  /** A complete message (not a chunk): its whole lifecycle at once, as core does for a model that did not stream. */
  private wholeMessage(namespace: ProtocolNamespace, node: string | undefined, message: Json, meta: Json): void {
    const open: OpenMessage = { namespace, node, blocks: [], usage: message.usage_metadata };
    const type = normalizeType(message.type) ?? "ai";
    const id = typeof message.id === "string" ? message.id : undefined;
    this.emitMessage(open, {
      event: "message-start",
      role: roleOf(type),
      ...(id !== undefined ? { id } : {}),
      ...(type === "tool" && typeof message.tool_call_id === "string" ? { tool_call_id: message.tool_call_id } : {}),
      ...messageMetadata(meta),
    });
    const blocks: Json[] = typeof message.content === "string" ? (message.content ? [{ type: "text", text: message.content }] : []) : Array.isArray(message.content) ? message.content.filter(isPlainObject) : [];
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isPlainObject) : [];
    for (const call of calls) blocks.push({ type: "tool_call", id: call.id ?? null, name: call.name ?? "", args: isPlainObject(call.args) ? call.args : {} });
    blocks.forEach((block, index) => {
      const start = block.type === "text" ? { type: "text", text: "" } : block.type === "tool_call" ? { type: "tool_call_chunk", id: block.id, name: block.name, args: "" } : block;
      this.emitMessage(open, { event: "content-block-start", index, content: start });
      if (block.type === "text" && typeof block.text === "string" && block.text) this.emitMessage(open, { event: "content-block-delta", index, delta: { type: "text-delta", text: block.text } });
      this.emitMessage(open, { event: "content-block-finish", index, content: block });
    });
    this.emitMessage(open, { event: "message-finish", ...(open.usage !== undefined ? { usage: open.usage } : {}) });
  }

  private emitMessage(open: OpenMessage, data: Json): void {
    this.session.push("messages", open.namespace, data, open.node);
  }
}

/** `AIMessageChunk` → `ai`, `HumanMessage` → `human`; `assistant`/`user` as the protocol names them. */
function normalizeType(type: unknown): string | undefined {
  if (typeof type !== "string") return undefined;
  const base = type.replace(/MessageChunk$|Message$/, "").toLowerCase();
  if (base === "assistant") return "ai";
  if (base === "user") return "human";
  return base;
}

function roleOf(type: string): string {
  const t = normalizeType(type) ?? "ai";
  return t === "human" || t === "system" || t === "tool" ? t : "ai";
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (typeof b === "string" ? b : isPlainObject(b) && b.type === "text" && typeof b.text === "string" ? b.text : "")).join("");
}

function parseArgs(text: string): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Concise provider and model metadata of a message, from its tuple metadata (`ls_provider`, `ls_model_name`). */
function messageMetadata(meta: Json): Json {
  const out: Json = {};
  const pick = (key: string, ...from: string[]) => {
    const value = from.map((k) => meta[k]).find((v) => typeof v === "string");
    if (value !== undefined) out[key] = value;
  };
  pick("provider", "provider", "ls_provider");
  pick("model", "model", "model_name", "ls_model_name");
  pick("model_type", "model_type", "ls_model_type");
  pick("run_id", "run_id");
  return Object.keys(out).length ? { metadata: out } : {};
}

/** `on_tool_start|event|end|error` tool stream parts as the protocol's tool events (the JS session's normalizeToolData). */
function toolData(value: unknown): Json {
  if (!isPlainObject(value) || typeof value.event !== "string") return { event: "tool-output-delta", tool_call_id: "", delta: JSON.stringify(value) ?? "null" };
  const id = [value.toolCallId, value.tool_call_id, value.id].find((v) => typeof v === "string") ?? "";
  switch (value.event) {
    case "on_tool_start":
      return { event: "tool-started", tool_call_id: id, tool_name: typeof value.name === "string" ? value.name : "tool", input: value.input };
    case "on_tool_event":
      return { event: "tool-output-delta", tool_call_id: id, delta: typeof value.data === "string" ? value.data : (JSON.stringify(value.data ?? null) as string) };
    case "on_tool_end":
      return { event: "tool-finished", tool_call_id: id, output: value.output };
    case "on_tool_error":
      return { event: "tool-error", tool_call_id: id, message: isPlainObject(value.error) && typeof value.error.message === "string" ? value.error.message : typeof value.error === "string" ? value.error : JSON.stringify(value.error) ?? "" };
    default:
      return { event: "tool-output-delta", tool_call_id: id, delta: JSON.stringify(value) };
  }
}

const MESSAGE_TYPES = new Set(["human", "ai", "system", "tool", "function", "remove"]);

function isMessage(value: unknown): value is Json {
  return isPlainObject(value) && MESSAGE_TYPES.has(normalizeType(value.type) ?? "");
}

/**
 * State as the protocol sends it (the JS session's normalizeProtocolStatePayload): `__interrupt__`
 * dropped, messages reduced to their protocol fields (type, content, id, name, non-empty
 * response_metadata, example; a tool message's tool_call_id, status and artifact; an AI message's
 * tool calls as `{id, name, args, type: "tool_call"}`).
 */
export function normalizeState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isMessage(item) ? normalizeMessage(item) : normalizeState(item)));
  if (!isPlainObject(value)) return value;
  const out: Json = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === "__interrupt__") continue;
    // Own data properties only: a key named __proto__ stays data.
    Object.defineProperty(out, key, { value: normalizeState(entry), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function normalizeMessage(value: Json): Json {
  const type = normalizeType(value.type) as string;
  const message: Json = { type, content: "content" in value ? value.content : "" };
  if (typeof value.id === "string") message.id = value.id;
  if (typeof value.name === "string") message.name = value.name;
  if (isPlainObject(value.response_metadata) && Object.keys(value.response_metadata).length) message.response_metadata = value.response_metadata;
  if ((type === "ai" || type === "human") && typeof value.example === "boolean") message.example = value.example;
  if (type === "tool") {
    if (typeof value.tool_call_id === "string") message.tool_call_id = value.tool_call_id;
    if (value.status === "success" || value.status === "error") message.status = value.status;
    if ("artifact" in value) message.artifact = value.artifact;
  }
  if (type === "ai" && Array.isArray(value.tool_calls)) {
    const calls = value.tool_calls.filter(isPlainObject).map((c) => ({ ...(typeof c.id === "string" ? { id: c.id } : {}), name: c.name, args: isPlainObject(c.args) ? c.args : parseArgs(typeof c.args === "string" ? c.args : ""), type: "tool_call" }));
    if (calls.length) message.tool_calls = calls;
  }
  if (type === "ai" && Array.isArray(value.invalid_tool_calls) && value.invalid_tool_calls.length) message.invalid_tool_calls = value.invalid_tool_calls;
  return message;
}
