import type { MockContext } from "../context.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { feedbackTokensIn, type FeedbackToken } from "./feedback-tokens.js";
import { feedbackResponse, recordTokenFeedback, type Submission } from "./feedback-records.js";
import { tracingErrors } from "./errors.js";

const SUBMIT = "tracing/feedback-submit.json#/$defs/";
const FEEDBACK = "tracing/feedback.json#/$defs/Feedback";
const TOKEN_PATH = object({ token: UUID });

/**
 * The presigned URLs a run's `feedback` event hands out: `POST` (JSON body) and `GET` (query)
 * `/feedback/tokens/{token}` each record one feedback against the token's run and key and answer
 * 200 with the record. No API key: the token is the authorization. Browsers call them from the
 * application's origin. The token and the submission are validated together (one 422 listing every
 * problem, nothing recorded) before the token is looked up.
 */
export function submitRoutes(ctx: MockContext): RouteSpec[] {
  return [
    route<{ params: { token: string }; body: Submission }>({
      name: "feedback_tokens.submit",
      method: "POST",
      path: "/feedback/tokens/{token}",
      summary: "Record feedback through a presigned URL (JSON body)",
      params: TOKEN_PATH,
      body: `${SUBMIT}SubmitBody`,
      responses: { 200: FEEDBACK },
      public: true,
      cors: true,
      handler: ({ params, body }) => feedbackResponse(recordTokenFeedback(ctx, liveToken(ctx, params.token), body, "POST").feedback),
    }),
    route<{ params: { token: string }; query: Submission }>({
      name: "feedback_tokens.submit_get",
      method: "GET",
      path: "/feedback/tokens/{token}",
      summary: "Record feedback through a presigned URL (query)",
      params: TOKEN_PATH,
      query: `${SUBMIT}SubmitQuery`,
      responses: { 200: FEEDBACK },
      public: true,
      cors: true,
      handler: ({ params, query }) => feedbackResponse(recordTokenFeedback(ctx, liveToken(ctx, params.token), query, "GET").feedback),
    }),
  ];
}

/** The token, if it exists and has not expired on the mock's clock; reusable until then. */
function liveToken(ctx: MockContext, tokenId: string): FeedbackToken {
  const token = feedbackTokensIn(ctx).get(tokenId);
  if (!token) throw tracingErrors.tokenNotFound();
  if (ctx.clock.now() >= token.expires_at) throw tracingErrors.tokenExpired();
  return token;
}
