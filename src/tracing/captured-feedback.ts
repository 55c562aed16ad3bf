import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { feedbackCollection, type FeedbackRecord } from "./feedback-records.js";

/** Filter of `GET /_mock/feedback` and `mock.feedback()`; every given field must match. */
export interface FeedbackFilter {
  key?: string;
  run_id?: string;
  thread_id?: string;
  token_id?: string;
}

/** One captured feedback, as `GET /_mock/feedback` lists it (DESIGN §4). */
export interface CapturedFeedback {
  id: string;
  /** The presigned token it came through; null for feedback created with `POST /api/v1/feedback`. */
  token_id: string | null;
  key: string;
  run_id: string | null;
  thread_id: string | null;
  assistant_id: string | null;
  /** Name of the scenario that scripted the run. */
  scenario: string | null;
  score: number | boolean | null;
  value: unknown;
  comment: string | null;
  correction: unknown;
  /** POST `metadata` of a token URL (null for GET), or the `feedback_source.metadata` of `POST /feedback`. */
  metadata: Record<string, unknown> | null;
  /** The HTTP method that recorded it. */
  method: string;
  received_at: string;
}

/**
 * The feedback the tracing service recorded, in arrival order, as the mock's inspection surfaces
 * show it (`mock.feedback(filter)`, `GET /_mock/feedback`). Each call returns new objects, all the way down.
 */
export function capturedFeedback(ctx: MockContext, filter: FeedbackFilter = {}): CapturedFeedback[] {
  const out: CapturedFeedback[] = [];
  for (const record of feedbackCollection(ctx).values()) {
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
