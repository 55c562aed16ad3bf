import type { MockContext } from "../context.js";
import { setOwn } from "../core/json.js";
import { uuid5 } from "../core/random.js";
import { issueFeedbackToken } from "./feedback-tokens.js";
import { dottedOrder, traceStoreOf } from "./trace-store.js";

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

/** Names the child runs of agent-server runs (one per step node). */
const STEP_NAMESPACE = "0e5c1a55-7a3e-4b1c-8d27-5e9f0c0de027";

/** A port that traces nothing and hands out no feedback URLs (an agent server built without the app). */
export const UNTRACED: Tracing = { feedbackUrls: () => ({}), recordRun: () => {} };

/** The tracing service's side of the port, over this mock's feedback tokens and trace store. */
export function tracingPort(ctx: MockContext): Tracing {
  return {
    feedbackUrls(run, keys, tracingUrl) {
      const urls: Record<string, string> = {};
      for (const key of keys) {
        const token = issueFeedbackToken(ctx, tracingUrl, { run_id: run.run_id, feedback_key: key, thread_id: run.thread_id, assistant_id: run.assistant_id, scenario: run.scenario });
        setOwn(urls, key, token.url); // a key named __proto__ is data too
      }
      return urls;
    },
    recordRun(run) {
      const store = traceStoreOf(ctx);
      const project = (run.deployment_id && ctx.data.deployments.get(run.deployment_id)?.deployment.name) || "default";
      const inputs = run.input !== null && typeof run.input === "object" && !Array.isArray(run.input) ? (run.input as Record<string, unknown>) : run.input == null ? null : { input: run.input };
      const metadata = { ...run.metadata, run_id: run.run_id, thread_id: run.thread_id, assistant_id: run.assistant_id, graph_id: run.graph_id, scenario: run.scenario };
      const root = store.create({
        run: {
          id: run.run_id,
          name: run.graph_id,
          run_type: "chain",
          start_time: run.start_time,
          end_time: run.end_time,
          inputs,
          outputs: run.outputs,
          error: run.error,
          extra: { metadata },
          tags: [],
          session_name: project,
        },
        // Its values are the thread's state, held by the thread already: only the run cap counts it.
        size: 0,
      });
      let step = 0;
      for (const s of run.steps) {
        step++;
        for (const node of s.nodes) {
          // Named from the run, not drawn: tracing must not move the seeded sequence other ids come from.
          const id = uuid5(`${run.run_id}/${step}/${node}`, STEP_NAMESPACE);
          const written = s.writes[node];
          store.create({
            run: {
              id,
              name: node,
              run_type: "chain",
              start_time: run.start_time,
              end_time: run.end_time,
              inputs: null,
              outputs: written !== null && typeof written === "object" && !Array.isArray(written) ? (written as Record<string, unknown>) : written === undefined ? null : { output: written },
              parent_run_id: root.id,
              trace_id: root.id,
              // Steps have no times of their own: the microseconds keep them in the order they ran.
              dotted_order: dottedOrder(root.dotted_order, run.start_time, id, Math.min(step, 999)),
              extra: { metadata: { ...metadata, langgraph_step: step, langgraph_node: node } },
              tags: [`graph:step:${step}`],
              session_name: project,
            },
            size: 0,
          });
        }
      }
    },
  };
}
