import { getOwn, isPlainObject, setOwn } from "../core/json.js";
import { uuid5, uuidBytes } from "../core/random.js";
import type { AssistantRef } from "./assistants.js";
import type { RunCreate } from "../schemas/types.gen.js";

/*
 * What a run is given to run with, as the real runtime's `Runs.put` builds it: its config, metadata and
 * kwargs, merged from the assistant, the thread and the request; and the thread's config after it.
 */

/** The run-create body after validation and defaults (schema agent-server/run.json#/$defs/RunCreate). */
export type RunCreateBody = RunCreate &
  Required<Pick<RunCreate, "stream_mode" | "stream_subgraphs" | "stream_resumable" | "multitask_strategy" | "if_not_exists" | "on_disconnect" | "on_completion">>;

/**
 * The checkpoint id a run asks to start from: `checkpoint.checkpoint_id` (the documented field, what
 * the SDK's `checkpoint` option and useStream's branching send) or the older `checkpoint_id`.
 */
export function requestedCheckpoint(body: { checkpoint_id?: unknown; checkpoint?: unknown }): string | undefined {
  if (typeof body.checkpoint_id === "string") return body.checkpoint_id;
  const id = isPlainObject(body.checkpoint) ? getOwn(body.checkpoint, "checkpoint_id") : undefined;
  return typeof id === "string" ? id : undefined;
}

/** Request headers the real server never copies into a run's configurable (vendored `utils/headers.py`). */
const PRIVATE_HEADERS = new Set(["x-api-key", "x-tenant-id", "x-service-key"]);

/**
 * The run's `config` as the real server fills it (vendored `models/run.py` `create_valid_run`): the
 * request's config, with `configurable` gaining the `user-agent` and `x-*` request headers, the
 * checkpoint asked for, the run's identity, `langgraph_request_id` (the `x-request-id` sent, else one
 * fixed by the run id) and `__after_seconds__` for a delayed run. The assistant's own config comes
 * first, the request's over it, `configurable` merged key by key (the real `Runs.put`:
 * `assistant.config || … || config`, `configurable` likewise).
 */
function runConfig(
  body: RunCreateBody,
  headers: Record<string, unknown>,
  identity: { run_id: string; thread_id: string; graph_id: string; assistant_id: string },
  requestId: string,
  assistantConfig: Record<string, unknown> = {},
  threadConfig: Record<string, unknown> = {},
): Record<string, unknown> {
  const given: Record<string, unknown> = isPlainObject(body.config) ? body.config : {};
  const config: Record<string, unknown> = { ...assistantConfig, ...given };
  const configurable: Record<string, unknown> = {
    ...(isPlainObject(assistantConfig.configurable) ? assistantConfig.configurable : {}),
    ...(isPlainObject(threadConfig.configurable) ? threadConfig.configurable : {}),
    ...(isPlainObject(given.configurable) ? given.configurable : {}),
  };
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (typeof value !== "string" || PRIVATE_HEADERS.has(name)) continue;
    if (name === "user-agent" || name.startsWith("x-")) setOwn(configurable, name, value);
  }
  // As the real server: `configurable.update(checkpoint)`, then the older `checkpoint_id`.
  if (isPlainObject(body.checkpoint)) for (const [key, value] of Object.entries(body.checkpoint)) setOwn(configurable, key, value);
  if (typeof body.checkpoint_id === "string") configurable.checkpoint_id = body.checkpoint_id;
  configurable.run_id = identity.run_id;
  configurable.thread_id = identity.thread_id;
  configurable.graph_id = identity.graph_id;
  configurable.assistant_id = identity.assistant_id;
  configurable.langgraph_request_id = typeof headers["x-request-id"] === "string" ? headers["x-request-id"] : requestId;
  if (body.after_seconds) configurable.__after_seconds__ = body.after_seconds;
  config.configurable = configurable;
  return config;
}

/**
 * The thread's `config` once a run is put on it, as the real runtime's `Runs.put` merges it: the
 * assistant's config, the thread's, then the run's (the request's with the server's additions), and
 * `configurable` likewise key by key. Left out, so that they do not carry over to the thread's later
 * runs: the run's own identity and `metadata` (each run gets its own), keys starting with `__`, and
 * the checkpoint a run forked from (a later run would fork there again).
 */
export function threadConfig(assistant: Record<string, unknown>, thread: Record<string, unknown>, run: Record<string, unknown>): Record<string, unknown> {
  const configurableOf = (c: Record<string, unknown>) => (isPlainObject(c.configurable) ? c.configurable : {});
  const configurable: Record<string, unknown> = {};
  for (const source of [configurableOf(assistant), configurableOf(thread), configurableOf(run)]) {
    for (const [key, value] of Object.entries(source)) {
      if (!key.startsWith("__") && !RUN_OWN_CONFIGURABLE.has(key)) setOwn(configurable, key, value);
    }
  }
  const merged: Record<string, unknown> = {};
  for (const source of [assistant, thread, run]) for (const key of Object.keys(source)) if (key !== "metadata") setOwn(merged, key, source[key]);
  merged.configurable = configurable;
  return merged;
}

/** Keys of a run's configurable that name that run or the checkpoint it started from. */
const RUN_OWN_CONFIGURABLE = new Set(["run_id", "thread_id", "graph_id", "assistant_id", "langgraph_request_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map"]);

/**
 * A run's `metadata` (also its `kwargs.config.metadata`), as the real runtime's `Runs.put` merges it:
 * the assistant's (`created_by`), the thread's (which the run has just given `graph_id` and
 * `assistant_id`), the request's `config.metadata`, then the request's `metadata`, each over the one
 * before, key by key (docs/decisions/conformance-js-vs-python.md note 13).
 */
export function runMetadata(assistant: Record<string, unknown>, thread: Record<string, unknown>, body: RunCreateBody): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const config = isPlainObject(body.config) ? body.config : {};
  for (const source of [assistant, thread, config.metadata, body.metadata]) {
    if (isPlainObject(source)) for (const key of Object.keys(source)) setOwn(merged, key, source[key]);
  }
  return merged;
}

/** The run's `kwargs` as the real server lists them; `context` (the assistant's, then the request's) mirrors `configurable` as there. */
export function runKwargs(
  body: RunCreateBody,
  stateless: boolean,
  headers: Record<string, unknown>,
  identity: { run_id: string; thread_id: string; graph_id: string; assistant_id: string },
  assistant: Pick<AssistantRef, "config" | "context">,
  metadata: Record<string, unknown>,
  threadConfig: Record<string, unknown>,
): Record<string, unknown> {
  const config = runConfig(body, headers, identity, uuid5(identity.run_id, REQUEST_ID_NAMESPACE), assistant.config, threadConfig);
  config.metadata = metadata;
  return {
    input: body.input ?? null,
    command: body.command ?? null,
    config,
    context: { ...assistant.context, ...(isPlainObject(body.context) ? body.context : {}), ...(config.configurable as Record<string, unknown>) },
    stream_mode: body.stream_mode,
    interrupt_before: body.interrupt_before ?? null,
    interrupt_after: body.interrupt_after ?? null,
    webhook: body.webhook ?? null,
    feedback_keys: body.feedback_keys ?? null,
    temporary: stateless && body.on_completion === "delete",
    subgraphs: body.stream_subgraphs,
    resumable: body.stream_resumable,
    checkpoint_during: body.checkpoint_during ?? false,
    checkpoint_id: requestedCheckpoint(body) ?? null,
    durability: body.durability ?? "async",
  };
}

/** Namespace of the mock's request ids (`langgraph_request_id`), so they are fixed by the run id. */
const REQUEST_ID_NAMESPACE = uuidBytes("5f1d2c3b-7a4e-4c1a-9b7e-2d6f8a0c1e3b");
