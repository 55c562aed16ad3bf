import type { MockContext } from "../context.js";
import { setOwn } from "../core/json.js";
import type { CapturedTrace, TraceRun, TracesQuery } from "../schemas/types.gen.js";
import { TRACING_TENANT_ID } from "./feedback-config-routes.js";
import { formatRunTime, traceStoreOf, type StoredTraceRun, type TraceStore } from "./trace-store.js";
import { feedbackIn } from "./feedback-records.js";

export type { CapturedTrace, TraceRun };

/** Filter of `GET /_mock/traces` and `mock.traces()` (the schema's TracesQuery); every given field must match. */
// Closed (the schema's open index signature dropped), so that a misspelt filter key fails to compile;
// the runtime refuses it too.
export type TraceFilter = { [K in keyof TracesQuery as string extends K ? never : K]: TracesQuery[K] };

export function runStatus(r: StoredTraceRun): "pending" | "success" | "error" {
  if (r.error !== null) return "error";
  return r.end_time === null ? "pending" : "success";
}

function attachmentsOf(r: StoredTraceRun): Record<string, { content_type: string; size: number }> {
  const out: Record<string, { content_type: string; size: number }> = {};
  for (const [name, a] of Object.entries(r.attachments)) setOwn(out, name, { content_type: a.content_type, size: a.data.length });
  return out;
}

/** The ids of the run's ancestors, root first, from its dotted order (each segment ends in its run id). */
function ancestorIds(r: StoredTraceRun): string[] {
  return r.dotted_order
    .split(".")
    .slice(0, -1)
    .map((segment) => segment.slice(-36));
}

/**
 * The feedback recorded on each run, as LangSmith's `feedback_stats`: per key the count `n`, the mean
 * `avg` of the scores (a boolean counts as 1 or 0; null when none has a score) and `values` (how often
 * each text value was given).
 */
export function feedbackStats(ctx: MockContext): Map<string, Record<string, { n: number; avg: number | null; values: Record<string, number> }>> {
  const byRun = new Map<string, Record<string, { n: number; sum: number; scored: number; values: Record<string, number> }>>();
  for (const { feedback: f } of feedbackIn(ctx).values()) {
    if (f.run_id === null) continue;
    const keys = byRun.get(f.run_id) ?? {};
    byRun.set(f.run_id, keys);
    const entry = Object.hasOwn(keys, f.key) ? (keys[f.key] as { n: number; sum: number; scored: number; values: Record<string, number> }) : { n: 0, sum: 0, scored: 0, values: {} };
    setOwn(keys, f.key, entry); // keys are client data: `__proto__` is a key like any other
    entry.n++;
    if (typeof f.score === "number" || typeof f.score === "boolean") {
      entry.sum += Number(f.score);
      entry.scored++;
    }
    if (typeof f.value === "string") setOwn(entry.values, f.value, (Object.hasOwn(entry.values, f.value) ? (entry.values[f.value] as number) : 0) + 1);
  }
  const out = new Map<string, Record<string, { n: number; avg: number | null; values: Record<string, number> }>>();
  for (const [runId, keys] of byRun) {
    const stats: Record<string, { n: number; avg: number | null; values: Record<string, number> }> = {};
    for (const [key, e] of Object.entries(keys)) setOwn(stats, key, { n: e.n, avg: e.scored ? e.sum / e.scored : null, values: e.values });
    out.set(runId, stats);
  }
  return out;
}

/** The `RunSchema` wire form. `child_run_ids` come from the runs stored now, `feedback_stats` from `feedbackStats`. */
export function traceRunResponse(r: StoredTraceRun, store: TraceStore, stats?: ReturnType<typeof feedbackStats>): TraceRun {
  const children: string[] = [];
  const direct: string[] = [];
  for (const other of store.values()) {
    if (other.trace_id !== r.trace_id || other.id === r.id) continue;
    if (other.dotted_order.startsWith(`${r.dotted_order}.`)) children.push(other.id);
    if (other.parent_run_id === r.id) direct.push(other.id);
  }
  return {
    id: r.id,
    name: r.name,
    run_type: r.run_type,
    start_time: formatRunTime(r.start_time, r.start_us),
    end_time: r.end_time === null ? null : formatRunTime(r.end_time, r.end_us),
    extra: structuredClone(r.extra),
    error: r.error,
    execution_order: 1,
    serialized: structuredClone(r.serialized),
    events: structuredClone(r.events),
    inputs: structuredClone(r.inputs),
    outputs: structuredClone(r.outputs),
    reference_example_id: r.reference_example_id,
    parent_run_id: r.parent_run_id,
    tags: r.tags ? [...r.tags] : null,
    session_id: r.session_id,
    status: runStatus(r),
    trace_id: r.trace_id,
    dotted_order: r.dotted_order,
    parent_run_ids: ancestorIds(r),
    child_run_ids: children,
    direct_child_run_ids: direct,
    feedback_stats: stats?.get(r.id) ?? null,
    app_path: `/o/${TRACING_TENANT_ID}/projects/p/${r.session_id}/r/${r.id}?trace_id=${r.trace_id}&start_time=${formatRunTime(r.start_time, r.start_us)}`,
    total_tokens: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_cost: null,
    prompt_cost: null,
    completion_cost: null,
    first_token_time: null,
    attachments: attachmentsOf(r),
  };
}

/** What the inspection surfaces show of a run; new objects all the way down. */
export function toCapturedTrace(r: StoredTraceRun): CapturedTrace {
  return {
    id: r.id,
    trace_id: r.trace_id,
    parent_run_id: r.parent_run_id,
    dotted_order: r.dotted_order,
    name: r.name,
    run_type: r.run_type,
    inputs: structuredClone(r.inputs),
    outputs: structuredClone(r.outputs),
    error: r.error,
    status: runStatus(r),
    start_time: formatRunTime(r.start_time, r.start_us),
    end_time: r.end_time === null ? null : formatRunTime(r.end_time, r.end_us),
    tags: r.tags ? [...r.tags] : [],
    extra: structuredClone(r.extra ?? {}),
    events: structuredClone(r.events ?? []),
    session_name: r.session_name,
    session_id: r.session_id,
    attachments: attachmentsOf(r),
  };
}

/**
 * The captured runs that match, in trace order: sorted by dotted order, so each trace's runs come in
 * the order they started, under their parents, and traces in the order they started.
 */
export function capturedTraces(ctx: MockContext, filter: TraceFilter = {}): CapturedTrace[] {
  const traceId = filter.trace_id?.toLowerCase();
  const parentId = filter.parent_run_id?.toLowerCase();
  const found: StoredTraceRun[] = [];
  for (const r of traceStoreOf(ctx).values()) {
    if (filter.name !== undefined && r.name !== filter.name) continue;
    if (filter.run_type !== undefined && r.run_type !== filter.run_type) continue;
    if (traceId !== undefined && r.trace_id !== traceId) continue;
    if (parentId !== undefined && r.parent_run_id !== parentId) continue;
    if (filter.session_name !== undefined && r.session_name !== filter.session_name) continue;
    if (filter.error !== undefined && (r.error !== null) !== filter.error) continue;
    found.push(r);
  }
  found.sort((a, b) => (a.dotted_order < b.dotted_order ? -1 : a.dotted_order > b.dotted_order ? 1 : 0));
  return found.map(toCapturedTrace);
}
