import { MAX_DEPTH, shapeProblem } from "../core/shape-limits.js";
import { validationError } from "../http/http-error.js";
import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { feedbackTokensIn, type FeedbackToken } from "./feedback-tokens.js";
import type { Feedback, FeedbackCreate, SubmitBody } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";

// The wire form (LangSmith `FeedbackSchema`, tracing/feedback.json), what a token URL accepts
// (tracing/feedback-submit.json) and the body of `POST /feedback` (tracing/feedback-create.json).
export type { Feedback, FeedbackCreate };
/** What a token URL accepts (schema `tracing/feedback-submit.json`). */
export type Submission = SubmitBody;

/**
 * The LangSmith record as stored: the mock's own times (`created_at`, `modified_at`) in epoch ms,
 * formatted only by `feedbackResponse`. `start_time` is the client's, kept as sent.
 */
export type StoredFeedback = Omit<Feedback, "created_at" | "modified_at"> & { created_at: number; modified_at: number };

/** The `Feedback` wire form (schema tracing/feedback.json#/$defs/Feedback). */
export function feedbackResponse(f: StoredFeedback): Feedback {
  return { ...f, created_at: formatTimestamp(f.created_at), modified_at: formatTimestamp(f.modified_at) };
}

/** One recorded feedback: the LangSmith record plus what the mock knows about where it came from. */
export interface FeedbackRecord {
  feedback: StoredFeedback;
  /** The presigned token it came through; null for `POST /feedback`. */
  token_id: string | null;
  thread_id: string | null;
  assistant_id: string | null;
  scenario: string | null;
  /** The `metadata` posted to a token URL, or the `feedback_source.metadata` of `POST /feedback`. */
  metadata: Record<string, unknown> | null;
  method: string;
  received_at: number;
}

/** Records one feedback submitted through a token URL, against the token's run and key. */
export function recordTokenFeedback(ctx: MockContext, token: FeedbackToken, submission: Submission, method: string): FeedbackRecord {
  const metadata = submission.metadata ?? null;
  const feedback = newFeedback(ctx, {
    id: ctx.random.uuid4(),
    key: token.feedback_key,
    score: submission.score,
    value: submission.value,
    comment: submission.comment,
    correction: submission.correction,
    run_id: token.run_id,
    feedback_source: { type: "api", metadata },
    // Token feedback has no extra (langsmith-sdk#2977); API-key feedback has {"error": false}.
    extra: null,
  });
  return store(ctx, { feedback, token_id: token.id, thread_id: token.thread_id, assistant_id: token.assistant_id, scenario: token.scenario, metadata, method });
}

/** Records one feedback created with an API key (`POST /feedback`, the langsmith client's `createFeedback`). */
export function recordApiFeedback(ctx: MockContext, body: FeedbackCreate, id: string): FeedbackRecord {
  const metadata = body.feedback_source?.metadata ?? null;
  const feedback = newFeedback(ctx, {
    ...body,
    id,
    feedback_source: { type: body.feedback_source?.type ?? "api", metadata },
    extra: { error: body.error ?? false },
  });
  // A run the agent server streamed is known by its tokens: the record gets its thread and scenario.
  const runId = feedback.run_id;
  const runToken = runId === null ? undefined : feedbackTokensIn(ctx).find((t) => t.run_id === runId);
  return store(ctx, {
    feedback,
    token_id: null,
    thread_id: runToken?.thread_id ?? null,
    assistant_id: runToken?.assistant_id ?? null,
    scenario: runToken?.scenario ?? null,
    metadata,
    method: "POST",
  });
}

/** The fields `PATCH /feedback/{id}` can change (schema `tracing/feedback-update.json`). */
export type FeedbackUpdate = Partial<Pick<Feedback, "score" | "value" | "comment" | "correction">>;

/** Applies an update: a field sent (even as null) replaces the record's, an absent one is kept. */
export function updateFeedback(ctx: MockContext, record: FeedbackRecord, update: FeedbackUpdate): FeedbackRecord {
  const feedback: StoredFeedback = { ...record.feedback, modified_at: ctx.clock.now() };
  if (update.score !== undefined) feedback.score = update.score;
  if (update.value !== undefined) feedback.value = update.value;
  if (update.comment !== undefined) feedback.comment = update.comment;
  if (update.correction !== undefined) feedback.correction = update.correction;
  return feedbackIn(ctx).set(feedback.id, { ...record, feedback });
}

/**
 * A complete record in the spec's field order, stamped with the mock's clock. The mock keeps no
 * traces: a run is taken to be the root of its own trace (as an agent-server run is) unless the
 * client names another trace.
 */
function newFeedback(ctx: MockContext, f: FeedbackCreate & { id: string; extra: Feedback["extra"] }): StoredFeedback {
  const at = ctx.clock.now();
  const runId = uuid(f.run_id);
  const traceId = uuid(f.trace_id) ?? runId;
  return {
    id: f.id.toLowerCase(),
    created_at: at,
    modified_at: at,
    key: f.key,
    score: f.score ?? null,
    value: f.value ?? null,
    comment: f.comment ?? null,
    correction: f.correction ?? null,
    feedback_group_id: uuid(f.feedback_group_id),
    comparative_experiment_id: uuid(f.comparative_experiment_id),
    run_id: runId,
    session_id: uuid(f.session_id),
    trace_id: traceId,
    start_time: f.start_time ?? null,
    is_root: runId !== null && traceId === runId,
    feedback_source: { type: f.feedback_source?.type ?? "api", metadata: f.feedback_source?.metadata ?? null, user_id: null, ls_user_id: null, user_name: null },
    extra: f.extra,
    feedback_thread_id: null,
  };
}

/** UUIDs as pydantic writes them back: lower case. */
function uuid(value: string | null | undefined): string | null {
  return value == null ? null : value.toLowerCase();
}

/**
 * Keeps a record only if it can be answered and listed: a record that the response (or a later
 * `GET /_mock/feedback`) could not serialise would be stored by a request that fails, and a retrying
 * client would record it twice. Bodies are depth-limited at the parser; this holds whatever the path.
 */
function store(ctx: MockContext, record: Omit<FeedbackRecord, "received_at">): FeedbackRecord {
  const problem = shapeProblem(record, { depth: MAX_DEPTH + 8 });
  if (problem) throw validationError([{ type: "value_error", loc: ["body"], msg: `Value error, feedback ${problem}`, input: null }]);
  const stored = { ...record, received_at: ctx.clock.now() };
  return feedbackIn(ctx).set(stored.feedback.id, stored);
}

/** What the tracing service captured: reset("feedback") empties it alone. */
export const feedbackIn = declareCollection<FeedbackRecord>("feedback", "feedback");
