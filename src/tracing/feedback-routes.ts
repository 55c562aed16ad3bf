import type { MockContext } from "../context.js";
import { requireUuidPath, validateBody, validateQuery } from "../http/validate.js";
import { feedbackCollection, recordApiFeedback, updateFeedback, type Feedback, type FeedbackCreate, type FeedbackRecord, type FeedbackUpdate } from "./feedback-records.js";
import { tracingErrors } from "./errors.js";
import type { TracingRoutes } from "./index.js";

const CREATE = "tracing/feedback-create.json#/$defs/FeedbackCreate";
const UPDATE = "tracing/feedback-update.json#/$defs/FeedbackUpdate";
const LIST_QUERY = "tracing/feedback-list-query.json#/$defs/FeedbackListQuery";

interface ListQuery {
  run?: string[];
  key?: string[];
  session?: string[];
  source?: string[];
  user?: string[];
  limit: number;
  offset: number;
  has_comment?: boolean | null;
  has_score?: boolean | null;
  level?: "run" | "session" | null;
  min_created_at?: string | null;
  max_created_at?: string | null;
  comparative_experiment_id?: string | null;
}

/**
 * LangSmith's feedback API as the langsmith client uses it: `GET /feedback` (`listFeedback`),
 * `GET`, `PATCH` and `DELETE /feedback/{feedback_id}` (`readFeedback`, `updateFeedback`, `deleteFeedback`)
 * and `POST /feedback` (`createFeedback`).
 */
export function feedbackRoutes(ctx: MockContext, on: TracingRoutes): void {
  on.get("/feedback", (req, res) => {
    const query = validateQuery<ListQuery>(LIST_QUERY, req.query as Record<string, unknown>);
    const keep = listFilter(query);
    const items: Feedback[] = [];
    for (const record of feedbackCollection(ctx).values()) if (keep(record.feedback)) items.push(record.feedback);
    // Newest first, as LangSmith lists; the collection holds them in arrival order.
    res.json(items.reverse().slice(query.offset, query.offset + query.limit));
  });
  on.get("/feedback/:feedback_id", (req, res) => {
    res.json(existing(ctx, String(req.params.feedback_id)).feedback);
  });
  on.patch("/feedback/:feedback_id", (req, res) => {
    const id = requireUuidPath("feedback_id", String(req.params.feedback_id));
    const update = validateBody<FeedbackUpdate>(UPDATE, req.body);
    res.json(updateFeedback(ctx, existing(ctx, id), update).feedback);
  });
  on.delete("/feedback/:feedback_id", (req, res) => {
    feedbackCollection(ctx).delete(existing(ctx, String(req.params.feedback_id)).feedback.id);
    res.json({});
  });
  on.post("/feedback", (req, res) => {
    const body = validateBody<FeedbackCreate>(CREATE, req.body);
    const id = (body.id ?? ctx.random.uuid4()).toLowerCase();
    if (feedbackCollection(ctx).has(id)) throw tracingErrors.feedbackExists(id);
    res.json(recordApiFeedback(ctx, body, id).feedback);
  });
}

function existing(ctx: MockContext, rawId: string): FeedbackRecord {
  const record = feedbackCollection(ctx).get(requireUuidPath("feedback_id", rawId));
  if (!record) throw tracingErrors.feedbackNotFound();
  return record;
}

/** Every given parameter must hold; a repeated one matches any of its values. */
function listFilter(q: ListQuery): (f: Feedback) => boolean {
  const anyOf = (values: string[] | undefined, lower = false) => {
    const set = values && new Set(lower ? values.map((v) => v.toLowerCase()) : values);
    return (value: string | null | undefined) => !set || (value != null && set.has(value));
  };
  const run = anyOf(q.run, true);
  const key = anyOf(q.key);
  const session = anyOf(q.session, true);
  const source = anyOf(q.source);
  const user = anyOf(q.user, true);
  const min = q.min_created_at ? Date.parse(q.min_created_at) : -Infinity;
  const max = q.max_created_at ? Date.parse(q.max_created_at) : Infinity;
  const experiment = q.comparative_experiment_id?.toLowerCase();
  return (f) => {
    const created = Date.parse(f.created_at);
    return (
      run(f.run_id) &&
      key(f.key) &&
      session(f.session_id) &&
      source(f.feedback_source?.type) &&
      user(f.feedback_source?.user_id) &&
      (q.has_comment == null || (f.comment != null && f.comment !== "") === q.has_comment) &&
      (q.has_score == null || (f.score !== null) === q.has_score) &&
      (q.level == null || (q.level === "run" ? f.run_id !== null : f.run_id === null && f.session_id !== null)) &&
      (experiment === undefined || f.comparative_experiment_id === experiment) &&
      created >= min &&
      created <= max
    );
  };
}
