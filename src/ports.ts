/**
 * What one service may use of another, declared apart from both so that neither imports the other;
 * src/app.ts wires them. The agent server reaches the tracing service only through `Tracing`.
 */

/** The run a feedback URL is about, as the agent server knows it. */
export interface FeedbackTarget {
  run_id: string;
  thread_id: string | null;
  assistant_id: string | null;
  scenario: string | null;
}

/** An agent-server run that finished, as the tracing service records it. */
export interface AgentRunTrace {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  graph_id: string;
  scenario: string;
  /** The deployment whose URL the run came in on: its name is the project (else "default"). */
  deployment_id: string | null;
  /** The run's input (`kwargs.input`); a value that is not an object is traced as `{input: value}`. */
  input: unknown;
  /** The state the run left (its final values). */
  outputs: Record<string, unknown> | null;
  /** Why it failed (`error: message`); null for a run that succeeded. */
  error: string | null;
  /** Epoch ms on the mock's clock. */
  start_time: number;
  end_time: number;
  /** The graph steps it played: one child run per node of each step. */
  steps: readonly { nodes: readonly string[]; writes: Record<string, unknown> }[];
  metadata: Record<string, unknown>;
}

/**
 * What the agent server needs of the tracing service, wired by src/app.ts: presigned feedback URLs
 * for a run's `feedback_keys`, and the run's trace once it has finished.
 */
export interface Tracing {
  /** One presigned feedback URL per key (`{key: url}`), pointing at `tracingUrl`. */
  feedbackUrls(run: FeedbackTarget, keys: readonly string[], tracingUrl: string): Record<string, string>;
  /** Records the run as a root run with a child run per step node. */
  recordRun(run: AgentRunTrace): void;
}

/** A port that traces nothing and hands out no feedback URLs (an agent server built without the app). */
export const UNTRACED: Tracing = { feedbackUrls: () => ({}), recordRun: () => {} };
