import type { MockContext } from "../context.js";

/** Filter of `GET /_mock/feedback` and `mock.feedback()`. */
export interface FeedbackFilter {
  key?: string;
  run_id?: string;
  thread_id?: string;
  token_id?: string;
}

/** One captured feedback, as `GET /_mock/feedback` lists it (DESIGN §4). */
export interface CapturedFeedback {
  id: string;
  token_id: string | null;
  key: string;
  run_id: string | null;
  thread_id: string | null;
  assistant_id: string | null;
  scenario: string | null;
  score: unknown;
  value: unknown;
  comment: string | null;
  correction: unknown;
  metadata: Record<string, unknown> | null;
  method: string;
  received_at: string;
}

// TODO(tracing issue #5): implemented by the tracing service module.
export function capturedFeedback(_ctx: MockContext, _filter: FeedbackFilter): CapturedFeedback[] {
  return [];
}
