import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { feedbackIn, type FeedbackRecord } from "./feedback-records.js";
import type { CapturedFeedback } from "../schemas/types.gen.js";

/** Filter of `GET /_mock/feedback` and `mock.feedback()`; every given field must match. */
// Declared here, closed: the schema's FeedbackQuery is an open object, and a closed type is what
// makes a misspelt filter key fail to compile.
export interface FeedbackFilter {
  key?: string;
  run_id?: string;
  thread_id?: string;
  token_id?: string;
}

// One captured feedback is the schema's (admin/control.json#/$defs/CapturedFeedback).
export type { CapturedFeedback };

/**
 * The feedback the tracing service recorded, in arrival order, as the mock's inspection surfaces
 * show it (`mock.feedback(filter)`, `GET /_mock/feedback`). Each call returns new objects, all the way down.
 */
export function capturedFeedback(ctx: MockContext, filter: FeedbackFilter = {}): CapturedFeedback[] {
  const out: CapturedFeedback[] = [];
  for (const record of feedbackIn(ctx).values()) {
    const item = toCaptured(record);
    if (matches(item, filter)) out.push(item);
  }
  return out;
}

function matches(item: CapturedFeedback, filter: FeedbackFilter): boolean {
  return (
    (filter.key === undefined || item.key === filter.key) &&
    sameId(item.run_id, filter.run_id) &&
    sameId(item.thread_id, filter.thread_id) &&
    sameId(item.token_id, filter.token_id)
  );
}

/** Ids are stored lower-case; a filter may be written in either case. */
function sameId(value: string | null, wanted: string | undefined): boolean {
  return wanted === undefined || (value !== null && value === wanted.toLowerCase());
}

/** Nested client JSON is cloned too: a test changing what it was handed must not change the record. */
export function toCaptured(r: FeedbackRecord): CapturedFeedback {
  const f = r.feedback;
  return {
    id: f.id,
    token_id: r.token_id,
    key: f.key,
    run_id: f.run_id,
    thread_id: r.thread_id,
    assistant_id: r.assistant_id,
    scenario: r.scenario,
    score: f.score,
    value: structuredClone(f.value),
    comment: f.comment,
    correction: structuredClone(f.correction),
    metadata: structuredClone(r.metadata),
    method: r.method,
    received_at: formatTimestamp(r.received_at),
  };
}
