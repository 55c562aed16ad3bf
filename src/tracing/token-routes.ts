import type { MockContext } from "../context.js";
import { validateBody, validateQuery } from "../http/validate.js";
import { issueFeedbackToken, tokenCollection, tokenResponse, type IssueTokenInput } from "./feedback-tokens.js";
import type { TracingRoutes } from "./index.js";

const CREATE = "tracing/feedback-token.json#/$defs/FeedbackIngestTokenCreate";
const CREATE_LIST = "tracing/feedback-token.json#/$defs/FeedbackIngestTokenCreateList";
const LIST_QUERY = "tracing/feedback-token.json#/$defs/TokenListQuery";

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
export function tokenRoutes(ctx: MockContext, on: TracingRoutes): void {
  on.post("/feedback/tokens", (req, res) => {
    const issue = (body: TokenCreate) => tokenResponse(issueFeedbackToken(ctx, req, tokenInput(body)));
    if (Array.isArray(req.body)) res.json(validateBody<TokenCreate[]>(CREATE_LIST, req.body).map(issue));
    else res.json(issue(validateBody<TokenCreate>(CREATE, req.body)));
  });
  on.get("/feedback/tokens", (req, res) => {
    const { run_id, limit, offset } = validateQuery<{ run_id: string; limit?: number; offset: number }>(LIST_QUERY, req.query as Record<string, unknown>);
    const runId = run_id.toLowerCase();
    const tokens = tokenCollection(ctx).filter((t) => t.run_id === runId);
    res.json(tokens.slice(offset, limit === undefined ? undefined : offset + limit).map(tokenResponse));
  });
}

/** `expires_at` wins over `expires_in`; with neither the token lives 3 hours. */
function tokenInput(body: TokenCreate): IssueTokenInput {
  const { days = 0, hours = 0, minutes = 0 } = body.expires_in ?? {};
  return {
    run_id: body.run_id.toLowerCase(),
    feedback_key: body.feedback_key,
    feedback_config: body.feedback_config ?? null,
    expiresAt: body.expires_at ? Date.parse(body.expires_at) : undefined,
    ttlMs: body.expires_in ? ((days * 24 + hours) * 60 + minutes) * 60_000 : undefined,
  };
}
