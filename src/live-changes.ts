import type { MockContext } from "./context.js";
import type { AgentServer } from "./agent-server/index.js";
import { adminRunResponse, type RunRecord } from "./agent-server/runs.js";
import type { Execution, Frame } from "./agent-server/run-execution.js";
import { formatTimestamp } from "./core/clock.js";
import { revisionsIn } from "./control-plane/deployments-store.js";
import { toCaptured } from "./tracing/captured-feedback.js";

const TERMINAL = new Set(["success", "error", "timeout", "interrupted"]);

/**
 * Connects the mock's state to its change feed (`ctx.events`, served as `GET /_mock/events`): runs,
 * their events, feedback, the request journal, scenarios, the clock and deployments. It is one
 * subscriber of each (`waitFor` is another); `createApp` calls it once. Every emit builds its payload
 * only when someone is listening.
 */
export function wireLiveChanges(ctx: MockContext, agent: AgentServer): void {
  const bus = ctx.events;

  ctx.data.runs.subscribe((id, run, previous) => {
    if (id === undefined) return; // restore(): the "reset" event says it
    if (!run) return bus.emit("run.removed", () => ({ run_id: id }));
    if (!previous) {
      bus.emit("run.created", () => adminRunResponse(run));
      // The execution is registered right after the record; its events are replayed on subscribe.
      if (bus.listening) queueMicrotask(() => follow(agent.runs.execution(run.run_id), run, -1));
    } else if (run.status !== previous.status) {
      bus.emit(TERMINAL.has(run.status) ? "run.ended" : "run.updated", () => adminRunResponse(run));
    }
  });

  // A run's events are followed only while someone follows the feed (following every run of a
  // burst of streams cost a microtask, a listener and a call per event, for nobody). Whoever starts
  // following gets the events of the runs still playing from then on.
  const followed = new WeakSet<Execution>();
  const follow = (execution: Execution | undefined, run: RunRecord, afterId: number) => {
    if (!execution || followed.has(execution)) return;
    followed.add(execution);
    followEvents(ctx, execution, run, afterId);
  };
  bus.onFirstListener = () => {
    for (const execution of agent.runs.playing()) {
      const run = ctx.data.runs.get(execution.script.run_id);
      if (run) follow(execution, run, execution.frames.length - 1);
    }
  };

  ctx.data.feedback.subscribe((id, record, previous) => {
    if (id === undefined) return bus.emit("feedback.cleared", () => ({}));
    if (!record) return bus.emit("feedback.deleted", () => ({ id }));
    bus.emit(previous ? "feedback.updated" : "feedback.recorded", () => toCaptured(record));
  });

  ctx.journal.subscribe((read) => bus.emit("request.journaled", read));

  agent.scenarios.subscribe((action, names) => bus.emit(`scenarios.${action}`, () => ({ names: [...names] })));

  ctx.clock.onChange((now, cause) => bus.emit("clock.moved", () => ({ now: formatTimestamp(now), cause })));

  // A deployment is written with its metadata and revisions: each revision the write added or
  // replaced is a change, then the deployment if it is new or replaced. What a write replaced is
  // looked up (and a payload's closure made) only while someone follows the feed: a load writes
  // 100,000 deployments.
  ctx.data.deployments.subscribe((id, stored, previous) => {
    if (id === undefined || !bus.listening) return;
    if (!stored) return bus.emit("deployment.changed", () => ({ deployment_id: id, deleted: true }));
    const before = previous && revisionsIn(previous);
    for (const entry of revisionsIn(stored)) {
      if (before?.includes(entry)) continue;
      bus.emit("deployment.changed", () => ({ deployment_id: entry.deployment_id, revision_id: entry.revision.id, status: entry.revision.status }));
    }
    if (stored.deployment !== previous?.deployment) bus.emit("deployment.changed", () => ({ deployment_id: id, deleted: false }));
  });
  ctx.data.deployments.onWriteTakesPrevious = () => bus.listening;
}

/** Forwards a run's stream events after position `afterId` to the feed as `run.event`. */
function followEvents(ctx: MockContext, execution: Execution, run: RunRecord, afterId: number): void {
  execution.subscribe({
    // Checked here too: a run's every event would otherwise build the payload's closure for nobody.
    frame: (frame) => {
      if (ctx.events.listening) ctx.events.emit("run.event", () => ({ run_id: run.run_id, ...timelineEntry(frame, run.created_at) }));
    },
    heartbeat: () => {},
    end: () => {},
  }, afterId);
}

/** One event of a run as the inspector's timeline shows it. */
export function timelineEntry(frame: Frame, runCreatedAt: number) {
  let data: unknown;
  try {
    data = JSON.parse(frame.data);
  } catch {
    data = frame.data;
  }
  return {
    id: frame.id,
    event: frame.event,
    mode: frame.mode,
    size: Buffer.byteLength(frame.data),
    at: formatTimestamp(frame.at),
    offset_ms: frame.at - runCreatedAt,
    data,
  };
}
