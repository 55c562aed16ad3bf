import type { MockContext } from "../context.js";
import { formatTimestamp, instantAfterClamped } from "../core/clock.js";
import { declareCollection } from "../store/store.js";

/** Default lifetime of a presigned feedback token: 3 hours (runs-and-feedback-notes §B2). */
export const DEFAULT_TOKEN_TTL_MS = 3 * 60 * 60 * 1000;

/** A presigned feedback token: what a `feedback` event URL (or `POST /feedback/tokens`) stands for. */
export interface FeedbackToken {
  id: string;
  run_id: string;
  /** The run's thread, when the token came from an agent-server run. */
  thread_id: string | null;
  assistant_id: string | null;
  /** Name of the scenario that scripted the run. */
  scenario: string | null;
  feedback_key: string;
  feedback_config: Record<string, unknown> | null;
  created_at: number;
  expires_at: number;
  url: string;
}

export interface IssueTokenInput {
  run_id: string;
  feedback_key: string;
  thread_id?: string | null;
  assistant_id?: string | null;
  scenario?: string | null;
  feedback_config?: Record<string, unknown> | null;
  /** Lifetime in ms from now (default 3 hours). Ignored when expiresAt is given. */
  ttlMs?: number;
  /** Absolute expiry, ms since epoch. */
  expiresAt?: number;
}

/**
 * Creates a token for a run and key and returns it with its URL,
 * `{tracing_url}/api/v1/feedback/tokens/<uuid>`. The agent server calls this for each
 * `feedback_keys` entry; the tracing API calls it for `POST /feedback/tokens`.
 */
export function issueFeedbackToken(ctx: MockContext, tracingUrl: string, input: IssueTokenInput): FeedbackToken {
  const now = ctx.clock.now();
  const id = ctx.random.uuid4();
  const token: FeedbackToken = {
    id,
    run_id: input.run_id,
    thread_id: input.thread_id ?? null,
    assistant_id: input.assistant_id ?? null,
    scenario: input.scenario ?? null,
    feedback_key: input.feedback_key,
    feedback_config: input.feedback_config ?? null,
    created_at: now,
    // Explicit expiries were checked against the clock's range by the route; the default lifetime of a
    // token made at the clock's last hours ends at its last instant.
    expires_at: input.expiresAt ?? instantAfterClamped(now, input.ttlMs ?? DEFAULT_TOKEN_TTL_MS),
    url: `${tracingUrl}/api/v1/feedback/tokens/${id}`,
  };
  feedbackTokensIn(ctx).set(id, token);
  return token;
}

/** The LangSmith `FeedbackIngestTokenSchema` wire form of a token. */
export function tokenResponse(token: FeedbackToken) {
  return { id: token.id, url: token.url, expires_at: formatTimestamp(token.expires_at), feedback_key: token.feedback_key };
}

export const feedbackTokensIn = declareCollection<FeedbackToken>("feedback_tokens");
