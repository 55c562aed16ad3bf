import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { isPlainObject, omit, setOwn } from "../core/json.js";
import { uuid5, uuidBytes } from "../core/random.js";
import type { Interrupt } from "./threads.js";
import { SERVER_RUN_METADATA } from "./server-identity.js";
import { declareCollection } from "../store/store.js";

/**
 * One saved state of a thread. As LangGraph's checkpointer, a run saves one per step: an `input`
 * checkpoint for a run with input, then a `loop` checkpoint after each step (docs/scenarios.md "Steps
 * and checkpoints").
 */
export interface CheckpointRecord {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  created_at: number;
  values: Record<string, unknown>;
  /** Nodes the thread would run next (the interrupted node while interrupted). */
  next: string[];
  /** `{task_id: [interrupt]}` of the pending tasks. */
  interrupts: Record<string, Interrupt[]>;
  /** What each node of `next` returned once it ran (its writes in the following step), by node. */
  results?: Record<string, unknown>;
  /** The error a node of `next` raised, as LangGraph's checkpointer saves it (`repr` of the exception), by node. */
  errors?: Record<string, string>;
  metadata: Record<string, unknown>;
}

/** Who saved a checkpoint: the run, whose metadata and scalar configurable go into every checkpoint's metadata. */
export interface CheckpointRun {
  run_id: string;
  thread_id: string;
  graph_id: string;
  assistant_id: string;
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
}

/** What a run saves: the steps it played and the state it left. */
export interface RunCheckpointsInput {
  run: CheckpointRun;
  /** The run's input; undefined for a run with a `command` only (a resume writes no input checkpoint). */
  input: unknown;
  /** The state before the run. */
  priorValues: Record<string, unknown> | null;
  /** The state once `__start__` applied the input (runs.ts startState). */
  started: Record<string, unknown> | null;
  steps: readonly { nodes: string[]; writes: Record<string, unknown>; values: Record<string, unknown> | null }[];
  /** The state the run left: values, the nodes to run next, pending interrupts and the errors of nodes that raised. */
  final: { values: Record<string, unknown> | null; next: string[]; interrupts: Record<string, Interrupt[]>; errors?: Record<string, string> | undefined };
  /** The checkpoint the run started from (`checkpoint_id` on run create); default the thread's newest. */
  parent?: CheckpointRecord | undefined;
  /**
   * Ids (and times) the run gave its checkpoints as it played them, in order (its stream and task ids
   * name them); a checkpoint past the list gets a new id now.
   */
  ids?: readonly { id: string; at: number }[];
}

/** A thread's checkpoints, newest first. */
export function checkpointsOf(ctx: MockContext, threadId: string): CheckpointRecord[] {
  return [...(checkpointsIn(ctx).get(threadId) ?? [])].reverse();
}

/** The thread's newest checkpoint, if a run saved one. */
export function latestCheckpoint(ctx: MockContext, threadId: string): CheckpointRecord | undefined {
  return checkpointsIn(ctx).get(threadId)?.at(-1);
}

/** The thread's checkpoint with this id. */
export function findCheckpoint(ctx: MockContext, threadId: string, checkpointId: string): CheckpointRecord | undefined {
  return checkpointsIn(ctx).get(threadId)?.find((c) => c.checkpoint_id === checkpointId);
}

/**
 * Saves a run's checkpoints after its parent (the thread's newest, or the one it was forked from):
 * `input` (step n, next `__start__`, writes `{__start__: input}`) and a `loop` checkpoint after the
 * start (next: the first step's nodes) for a run with input; then one `loop` checkpoint per step
 * (writes: the step's update). At least one checkpoint is saved; the last holds the run's final state.
 * Steps count on from the parent's (-1 for a thread's first input), as LangGraph's supersteps.
 */
export function saveRunCheckpoints(ctx: MockContext, input: RunCheckpointsInput): CheckpointRecord[] {
  const checkpoints = checkpointsIn(ctx);
  const previous = checkpoints.get(input.run.thread_id) ?? [];
  const parent = input.parent ?? previous.at(-1);
  const parentStep = typeof parent?.metadata.step === "number" ? parent.metadata.step : undefined;
  let step = parentStep === undefined ? (input.input !== undefined ? -1 : 0) : parentStep + 1;
  type Entry = { source: string; writes: unknown; values: Record<string, unknown> | null; next: string[] };
  const entries: Entry[] = [];
  const firstNext = input.steps[0]?.nodes ?? input.final.next;
  if (input.input !== undefined) {
    entries.push({ source: "input", writes: { __start__: input.input }, values: input.priorValues, next: ["__start__"] });
    // After `__start__` the input is in the state, as LangGraph's step 0 shows it.
    entries.push({ source: "loop", writes: null, values: input.started, next: firstNext });
  }
  input.steps.forEach((s, i) => entries.push({ source: "loop", writes: s.writes, values: s.values, next: input.steps[i + 1]?.nodes ?? input.final.next }));
  if (!entries.some((e) => e.source === "loop")) entries.push({ source: "loop", writes: null, values: input.priorValues, next: input.final.next });
  const base = checkpointRunMetadata(input.run);
  const now = ctx.clock.now();
  const saved: CheckpointRecord[] = [];
  let parentId = parent?.checkpoint_id ?? null;
  entries.forEach((entry, i) => {
    const last = i === entries.length - 1;
    const metadata = { ...base };
    const system: Record<string, unknown> = { source: entry.source, step: step++, parents: {}, writes: entry.writes };
    for (const key of Object.keys(system)) setOwn(metadata, key, system[key]);
    const given = input.ids?.[i];
    const checkpoint: CheckpointRecord = {
      checkpoint_id: given?.id ?? ctx.random.uuid7(now),
      parent_checkpoint_id: parentId,
      created_at: given?.at ?? now,
      values: (last ? input.final.values : entry.values) ?? {},
      next: entry.next,
      interrupts: last ? input.final.interrupts : {},
      results: resultsOf(entry, entries[i + 1]),
      ...(last && input.final.errors ? { errors: input.final.errors } : {}),
      metadata,
    };
    parentId = checkpoint.checkpoint_id;
    saved.push(checkpoint);
  });
  // A resumed interrupt: the interrupted task of the parent now has its result (the resume's first
  // step writes for that node), as LangGraph shows it in the parent's tasks from then on.
  const list = [...previous];
  const resumed = parent && Object.keys(parent.interrupts).length && input.input === undefined ? list.findIndex((c) => c.checkpoint_id === parent.checkpoint_id) : -1;
  if (resumed >= 0 && parent) {
    const results = { ...(parent.results ?? {}), ...resultsOf({ next: parent.next, writes: null }, entries[0]) };
    list[resumed] = { ...parent, results };
  }
  checkpoints.set(input.run.thread_id, [...list, ...saved]);
  return saved;
}

/** What each node of a checkpoint's `next` returned: `__start__` the input, the others their writes in the step after. */
function resultsOf(entry: { next: string[]; writes: unknown }, following: { writes: unknown } | undefined): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  for (const node of entry.next) {
    const writes = node === "__start__" ? entry.writes : following?.writes;
    if (isPlainObject(writes) && Object.hasOwn(writes, node)) setOwn(results, node, writes[node]);
  }
  return results;
}

/**
 * What every checkpoint of a run carries in its metadata, as LangGraph's `get_checkpoint_metadata`
 * builds it from the run's config: the scalar keys of `config.metadata` (the run's merged metadata,
 * then `run_attempt` and the server's `langgraph_*` keys, server-identity.ts), then the scalar keys of
 * `configurable` (request headers, the run's identity, `langgraph_request_id`) a key of the metadata
 * does not already hold. Objects and lists, keys starting with `__` and keys naming a checkpoint or a
 * task (`EXCLUDED_METADATA_KEYS` of langgraph's `checkpoint/base`) are left out: a run forked from a
 * checkpoint does not write that checkpoint's id into its own.
 */
export function checkpointRunMetadata(run: CheckpointRun): Record<string, unknown> {
  const config = isPlainObject(run.kwargs.config) ? run.kwargs.config : {};
  const given = isPlainObject(config.metadata) ? config.metadata : isPlainObject(run.metadata) ? run.metadata : {};
  // The real server adds these to the run's config metadata itself (vendored stream.py).
  const fromConfig: Record<string, unknown> = omit(given, []);
  const server: Record<string, unknown> = { run_attempt: 1, ...SERVER_RUN_METADATA };
  for (const key of Object.keys(server)) setOwn(fromConfig, key, server[key]);
  const configurable = isPlainObject(config.configurable) ? config.configurable : {};
  // A run record always names itself; the configurable's copy of these is the same.
  const identity = { run_id: run.run_id, thread_id: run.thread_id, graph_id: run.graph_id, assistant_id: run.assistant_id };
  const metadata: Record<string, unknown> = {};
  for (const source of [fromConfig, { ...identity, ...configurable }]) {
    for (const [key, value] of Object.entries(source)) {
      if (Object.hasOwn(metadata, key) || key.startsWith("__") || EXCLUDED_METADATA_KEYS.has(key) || !isScalar(value)) continue;
      setOwn(metadata, key, value);
    }
  }
  return metadata;
}

/** What LangGraph copies from a run's config into checkpoint metadata: strings, numbers and booleans. */
function isScalar(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

const EXCLUDED_METADATA_KEYS = new Set(["checkpoint_id", "checkpoint_ns", "checkpoint_map", "langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns"]);

/**
 * An exception as LangGraph's checkpointer saves a failed task's error write: `repr(exc)`
 * (langgraph `checkpoint/serde/jsonplus.py` `_msgpack_default`), `ValueError('boom')`, the message
 * quoted as Python's `repr` of a str quotes it.
 */
export function exceptionRepr(error: { error: string; message: string }): string {
  return `${error.error}(${pythonStrRepr(error.message)})`;
}

/** Python's `repr(str)`: single quotes unless the text holds one and no double quote; unprintable characters escaped. */
function pythonStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x7f || !UNPRINTABLE.test(ch)) out += ch;
    else out += code <= 0xff ? `\\x${hex(code, 2)}` : code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
  }
  return out + quote;
}

/** What Python's `str.isprintable` refuses beyond ASCII: control, format, surrogate, private, unassigned, separators other than the space. */
const UNPRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/** Task ids of the mock's checkpoints: fixed by the checkpoint and the node. */
const TASK_NAMESPACE = uuidBytes("3c9d7e2a-5b41-4f8e-9a6d-1e2f3a4b5c6d");

/**
 * The id of the task that runs `node` from a checkpoint, as LangGraph derives a task id from its
 * checkpoint's id: the same in the stream (`langgraph_checkpoint_ns`, `tasks`, `debug`), in the
 * thread's `interrupts` and in `getState` / `getHistory`.
 */
export function taskId(checkpointId: string, node: string): string {
  return uuid5(`${checkpointId}:${node}`, TASK_NAMESPACE);
}

function checkpointRef(threadId: string, checkpointId: string | null) {
  return { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId, checkpoint_map: null };
}

/**
 * The `ThreadState` wire form (schema agent-server/thread.json#/$defs/ThreadState) of a checkpoint.
 * Without one it is LangGraph's empty snapshot (`aget_state` finding nothing): for a thread no run has
 * touched, no checkpoint at all; for an id the thread does not have (`askedId`), that id, and nothing
 * else — the real server answers 200, not 404.
 */
export function threadStateResponse(threadId: string, c: CheckpointRecord | undefined, askedId?: string) {
  if (!c) {
    const checkpoint = askedId ? checkpointRef(threadId, askedId) : null;
    return { values: {}, next: [], tasks: [], checkpoint, metadata: null, created_at: null, parent_checkpoint: null, interrupts: [] };
  }
  const node = c.next[0] ?? "agent";
  // As LangGraph's StateSnapshot: a task per node of `next`, with what it returned once it ran.
  const task = (id: string, name: string, interrupts: Interrupt[]) => ({
    id,
    name,
    path: ["__pregel_pull", name],
    error: c.errors && Object.hasOwn(c.errors, name) ? c.errors[name] : null,
    interrupts,
    checkpoint: null,
    state: null,
    result: c.results && Object.hasOwn(c.results, name) ? c.results[name] : null,
  });
  const interrupted = Object.entries(c.interrupts).map(([id, list]) => task(id, node, list));
  const pending = interrupted.length ? interrupted : c.next.map((name) => task(taskId(c.checkpoint_id, name), name, []));
  return {
    values: c.values,
    next: c.next,
    tasks: pending,
    checkpoint: checkpointRef(threadId, c.checkpoint_id),
    metadata: c.metadata,
    created_at: formatTimestamp(c.created_at),
    parent_checkpoint: c.parent_checkpoint_id === null ? null : checkpointRef(threadId, c.parent_checkpoint_id),
    interrupts: Object.values(c.interrupts).flat(),
  };
}

/** A thread's checkpoints, oldest first, by thread id. */
export const checkpointsIn = declareCollection<readonly CheckpointRecord[]>("thread_checkpoints");
