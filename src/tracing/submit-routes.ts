import type { Request } from "express";
import type { MockContext } from "../context.js";
import { HttpError, validationError, type ValidationIssue } from "../http/http-error.js";
import { requireUuidPath, validateBody, validateQuery } from "../http/validate.js";
import { tokenCollection, type FeedbackToken } from "./feedback-tokens.js";
import { recordTokenFeedback, type Submission } from "./feedback-records.js";
import { tracingErrors } from "./errors.js";
import type { TracingRoutes } from "./index.js";

const BODY = "tracing/feedback-submit.json#/$defs/SubmitBody";
const QUERY = "tracing/feedback-submit.json#/$defs/SubmitQuery";

/**
 * The presigned URLs a run's `feedback` event hands out: `POST` (JSON body) and `GET` (query)
 * `/feedback/tokens/{token}` each record one feedback against the token's run and key and answer
 * 200 with the record. No API key: the token is the authorization.
 */
export function submitRoutes(ctx: MockContext, on: TracingRoutes): void {
  on.post("/feedback/tokens/:token", (req, res) => {
    const [tokenId, submission] = readRequest(req, () => validateBody<Submission>(BODY, req.body));
    res.json(recordTokenFeedback(ctx, liveToken(ctx, tokenId), submission, "POST").feedback);
  });
  on.get("/feedback/tokens/:token", (req, res) => {
    const [tokenId, submission] = readRequest(req, () => validateQuery<Submission>(QUERY, req.query as Record<string, unknown>));
    res.json(recordTokenFeedback(ctx, liveToken(ctx, tokenId), submission, "GET").feedback);
  });
}

/**
 * The token and the submission, validated together as FastAPI does: every problem of the path and
 * of the query or body is listed in one 422, before the token is looked up. Nothing is recorded then.
 */
function readRequest(req: Request, readSubmission: () => Submission): [string, Submission] {
  const issues: ValidationIssue[] = [];
  const tokenId = collect(issues, () => requireUuidPath("token", String(req.params.token)));
  const submission = collect(issues, readSubmission);
  if (issues.length) throw validationError(issues);
  return [tokenId as string, submission as Submission];
}

function collect<T>(issues: ValidationIssue[], read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 422) throw err;
    issues.push(...(err.body as { detail: ValidationIssue[] }).detail);
    return undefined;
  }
}

/** The token, if it exists and has not expired on the mock's clock; reusable until then. */
function liveToken(ctx: MockContext, tokenId: string): FeedbackToken {
  const token = tokenCollection(ctx).get(tokenId);
  if (!token) throw tracingErrors.tokenNotFound();
  if (ctx.clock.now() >= token.expires_at) throw tracingErrors.tokenExpired();
  return token;
}
