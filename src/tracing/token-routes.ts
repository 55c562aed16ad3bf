import type { MockContext } from "../context.js";
import { instantAfter, inClockRange } from "../core/clock.js";
import type { ValidationIssue } from "../http/http-error.js";
import { listOf, ref, route, type RouteSpec } from "../http/route.js";
import { tracingErrors } from "./errors.js";
import { feedbackTokensIn, issueFeedbackToken, tokenResponse, type IssueTokenInput } from "./feedback-tokens.js";

const TOKEN = "tracing/feedback-token.json#/$defs/";

interface TokenCreate {
  run_id: string;
  feedback_key: string;
  expires_in?: { days: number; hours: number; minutes: number } | null;
  expires_at?: string | null;
  feedback_config?: Record<string, unknown> | null;
}

/**
 * LangSmith's token API: `POST /feedback/tokens` (one object → one token, an array → an array in the
 * same order) and `GET /feedback/tokens?run_id=` (the run's tokens in creation order).
 */
export function tokenRoutes(ctx: MockContext): RouteSpec[] {
  return [
    route<{ body: TokenCreate | TokenCreate[] }>({
      name: "feedback_tokens.create",
      method: "POST",
      path: "/feedback/tokens",
      summary: "Create presigned feedback token(s)",
      // One object or the batch form; each is validated as its own shape (pydantic's union by type).
      body: { if: { type: "array" }, then: ref(`${TOKEN}FeedbackIngestTokenCreateList`), else: ref(`${TOKEN}FeedbackIngestTokenCreate`) },
      responses: { 200: { anyOf: [ref(`${TOKEN}FeedbackIngestToken`), listOf(`${TOKEN}FeedbackIngestToken`)] } },
      handler: ({ body, scope }) => {
        // Every expiry is checked before any token is made: a refused batch stores none.
        const now = ctx.clock.now();
        const problems: ValidationIssue[] = [];
        const inputs = (Array.isArray(body) ? body : [body]).map((one, i) => tokenInput(one, now, Array.isArray(body) ? ["body", i] : ["body"], problems));
        if (problems.length) throw tracingErrors.expiryOutOfRange(problems);
        const tokens = inputs.map((input) => tokenResponse(issueFeedbackToken(ctx, scope.tracingUrl, input)));
        return Array.isArray(body) ? tokens : tokens[0];
      },
    }),
    route<{ query: { run_id: string; limit?: number; offset: number } }>({
      name: "feedback_tokens.list",
      method: "GET",
      path: "/feedback/tokens",
      summary: "List a run's feedback tokens",
      query: `${TOKEN}TokenListQuery`,
      responses: { 200: listOf(`${TOKEN}FeedbackIngestToken`) },
      handler: ({ query: { run_id, limit, offset } }) => {
        const tokens = feedbackTokensIn(ctx).filter((t) => t.run_id === run_id);
        return tokens.slice(offset, limit === undefined ? undefined : offset + limit).map(tokenResponse);
      },
    }),
  ];
}

/**
 * `expires_at` wins over `expires_in`; with neither the token lives 3 hours. An expiry the clock
 * cannot hold (past its last instant or before its first) is a problem at `loc`, not a token.
 */
function tokenInput(body: TokenCreate, now: number, loc: (string | number)[], problems: ValidationIssue[]): IssueTokenInput {
  const input: IssueTokenInput = { run_id: body.run_id, feedback_key: body.feedback_key, feedback_config: body.feedback_config ?? null };
  if (body.expires_at) {
    const at = Date.parse(body.expires_at);
    if (inClockRange(at)) input.expiresAt = at;
    else problems.push(tracingErrors.expiryIssue([...loc, "expires_at"], body.expires_at));
  } else if (body.expires_in) {
    const { days = 0, hours = 0, minutes = 0 } = body.expires_in;
    const at = instantAfter(now, ((days * 24 + hours) * 60 + minutes) * 60_000);
    if (at !== undefined) input.expiresAt = at;
    else problems.push(tracingErrors.expiryIssue([...loc, "expires_in"], body.expires_in));
  }
  return input;
}
