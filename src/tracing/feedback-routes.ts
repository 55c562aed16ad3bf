import type { MockContext } from "../context.js";
import { listOf, object, route, UUID, type RouteSpec } from "../http/route.js";
import { feedbackIn, feedbackResponse, recordApiFeedback, updateFeedback, type FeedbackCreate, type FeedbackRecord, type FeedbackUpdate, type StoredFeedback } from "./feedback-records.js";
import { tracingErrors } from "./errors.js";

const CREATE = "tracing/feedback-create.json#/$defs/FeedbackCreate";
const UPDATE = "tracing/feedback-update.json#/$defs/FeedbackUpdate";
const LIST_QUERY = "tracing/feedback-list-query.json#/$defs/FeedbackListQuery";
const FEEDBACK = "tracing/feedback.json#/$defs/Feedback";
const FEEDBACK_PATH = object({ feedback_id: UUID });

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
export function feedbackRoutes(ctx: MockContext): RouteSpec[] {
  return [
    route<{ query: ListQuery }>({
      name: "feedback.list",
      method: "GET",
      path: "/feedback",
      summary: "List feedback, newest first",
      query: LIST_QUERY,
      responses: { 200: listOf(FEEDBACK) },
      handler: ({ query }) => {
        const keep = listFilter(query);
        const items: StoredFeedback[] = [];
        for (const record of feedbackIn(ctx).values()) if (keep(record.feedback)) items.push(record.feedback);
        // Newest first, as LangSmith lists; the collection holds them in arrival order.
        return items.reverse().slice(query.offset, query.offset + query.limit).map(feedbackResponse);
      },
    }),
    route<{ params: { feedback_id: string } }>({
      name: "feedback.get",
      method: "GET",
      path: "/feedback/{feedback_id}",
      params: FEEDBACK_PATH,
      responses: { 200: FEEDBACK },
      handler: ({ params }) => feedbackResponse(existing(ctx, params.feedback_id).feedback),
    }),
    route<{ params: { feedback_id: string }; body: FeedbackUpdate }>({
      name: "feedback.update",
      method: "PATCH",
      path: "/feedback/{feedback_id}",
      params: FEEDBACK_PATH,
      body: UPDATE,
      responses: { 200: FEEDBACK },
      handler: ({ params, body }) => feedbackResponse(updateFeedback(ctx, existing(ctx, params.feedback_id), body).feedback),
    }),
    route<{ params: { feedback_id: string } }>({
      name: "feedback.delete",
      method: "DELETE",
      path: "/feedback/{feedback_id}",
      params: FEEDBACK_PATH,
      responses: { 200: { type: "object", maxProperties: 0 } },
      handler: ({ params }) => {
        feedbackIn(ctx).delete(existing(ctx, params.feedback_id).feedback.id);
        return {};
      },
    }),
    ...(["/feedback", "/feedback/eager"] as const).map((path) =>
      route<{ body: FeedbackCreate }>({
        // The eager form records synchronously on the real service; the mock always does.
        name: path === "/feedback" ? "feedback.create" : "feedback.create_eager",
        method: "POST",
        path,
        body: CREATE,
        responses: { 200: FEEDBACK },
        handler: ({ body }) => {
          const id = body.id ?? ctx.random.uuid4();
          if (feedbackIn(ctx).has(id)) throw tracingErrors.feedbackExists(id);
          return feedbackResponse(recordApiFeedback(ctx, body, id).feedback);
        },
      }),
    ),
  ];
}

function existing(ctx: MockContext, id: string): FeedbackRecord {
  const record = feedbackIn(ctx).get(id);
  if (!record) throw tracingErrors.feedbackNotFound();
  return record;
}

/** Every given parameter must hold; a repeated one matches any of its values. */
function listFilter(q: ListQuery): (f: StoredFeedback) => boolean {
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
    const created = f.created_at;
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
