import type { MockContext } from "../context.js";
import { setOwn } from "../core/json.js";
import { uuid5, uuidBytes } from "../core/random.js";
import { issueFeedbackToken } from "./feedback-tokens.js";
import { dottedOrder, traceStoreOf } from "./trace-store.js";
import type { Tracing } from "../ports.js";

/** Names the child runs of agent-server runs (one per step node). */
const STEP_NAMESPACE = uuidBytes("0e5c1a55-7a3e-4b1c-8d27-5e9f0c0de027");

/**
 * The tracing service's side of the agent server's port, over this mock's feedback tokens and trace
 * store; `projectOf` names a deployment (the control plane's, wired by app.ts).
 */
export function tracingPort(ctx: MockContext, projectOf: (deploymentId: string) => string | undefined = () => undefined): Tracing {
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
      const project = (run.deployment_id && projectOf(run.deployment_id)) || "default";
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
