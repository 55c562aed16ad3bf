import type { MockContext } from "../context.js";
import type { Execution, Frame, StreamListener } from "./run-execution.js";
import { runsIn, type RunService } from "./runs.js";
import { sse, type SseReply, type SseSink } from "../http/route.js";
import { HEARTBEAT, sseFrame } from "./sse.js";
import { sortInCreationOrder } from "./pagination.js";

export type ThreadStreamMode = "lifecycle" | "run_modes" | "state_update";

/** Thread-level events that are not a run's (`state_update` after `POST /threads/{id}/state`), by thread. */
const threadEvents = new WeakMap<MockContext, Map<string, Set<(event: string, json: string) => void>>>();

function listenersOf(ctx: MockContext, threadId: string): Set<(event: string, json: string) => void> {
  let byThread = threadEvents.get(ctx);
  if (!byThread) threadEvents.set(ctx, (byThread = new Map()));
  let set = byThread.get(threadId);
  if (!set) byThread.set(threadId, (set = new Set()));
  return set;
}

/** Sends a thread-level event to the thread's open streams (none open: nothing to do). */
export function publishThreadEvent(ctx: MockContext, threadId: string, event: string, data: unknown): void {
  const set = threadEvents.get(ctx)?.get(threadId);
  if (!set?.size) return;
  const json = JSON.stringify(data);
  for (const listener of set) listener(event, json);
}

/** A `Last-Event-ID` the real server accepts: `-` (from the start) or a Redis stream id `<ms>-<seq>`. */
export function validStreamId(id: string): boolean {
  return id === "-" || /^\d+-\d+$/.test(id);
}

/**
 * Whether the real server passes an event to a thread stream with these modes: `run_modes` every run
 * event, `state_update` the state updates, `lifecycle` only a run's first `metadata` (run id and
 * attempt) and its `run_done`.
 */
function passes(modes: ReadonlySet<ThreadStreamMode>, event: string, json: string): boolean {
  if (modes.has("run_modes") && event !== "state_update") return true;
  if (modes.has("state_update") && event === "state_update") return true;
  if (modes.has("lifecycle") && event === "metadata") {
    try {
      const data = JSON.parse(json) as Record<string, unknown>;
      return data.status === "run_done" || ("attempt" in data && "run_id" in data);
    } catch {
      return false;
    }
  }
  return false;
}

export interface ThreadStreamOptions {
  modes: ReadonlySet<ThreadStreamMode>;
  /** Replay what the mock still holds of the thread's runs: all (`-`), those after an instant (ms), or none. */
  replayAfterMs: number | null;
  stallMs?: number;
}

/**
 * `GET /threads/{id}/stream`: the events of every run on the thread, one run after another, each
 * closed by `metadata {"status": "run_done", "run_id"}`, and the thread's `state_update`s. It stays
 * open until the client leaves, or a reset takes the thread away. No `id:` lines (the real server sends its Redis ids; the mock's run
 * events have none to give), so a reconnect resumes with `-` or an instant.
 */
export function joinThreadStream(ctx: MockContext, runs: RunService, threadId: string, options: ThreadStreamOptions): SseReply {
  return sse((writer) => follow(ctx, runs, threadId, writer, options), { stallMs: options.stallMs });
}

/** Follows the thread's runs into the stream; returns what stops following them. */
function follow(ctx: MockContext, runs: RunService, threadId: string, writer: SseSink, options: ThreadStreamOptions): () => void {
  const send = (event: string, json: string) => {
    if (passes(options.modes, event, json)) writer.event(sseFrame(event, json));
  };
  const followed = new Map<string, () => void>();
  /** Forwards a run's events: those it already has only when `replayed` says so, then every new one, then `run_done`. */
  const followRun = (runId: string, execution: Execution, replayed: (f: Frame) => boolean) => {
    if (followed.has(runId)) return;
    let live = false;
    const listener: StreamListener = {
      frame: (f) => {
        if (live || replayed(f)) send(f.event, f.data);
      },
      heartbeat: () => writer.heartbeat(HEARTBEAT),
      end: () => send("metadata", JSON.stringify({ status: "run_done", run_id: runId })),
    };
    followed.set(runId, () => {});
    // subscribe() hands over the events kept so far at once, then the live ones.
    const stop = execution.subscribe(listener);
    live = true;
    followed.set(runId, stop);
  };

  // What is already there: replayed when asked, else followed live from its next event.
  const existing = sortInCreationOrder(
    runsIn(ctx).filter((r) => r.thread_id === threadId),
    (r) => r.created_at,
    "asc",
  );
  for (const run of existing) {
    const execution = runs.execution(run.run_id);
    if (!execution) continue;
    const replay = options.replayAfterMs;
    if (replay !== null) followRun(run.run_id, execution, (f) => f.at > replay);
    else if (!execution.outcome) followRun(run.run_id, execution, () => false);
  }

  // Runs created from now on (their executions are registered right after the record).
  const unsubscribeRuns = ctx.events.subscribe((e) => {
    // The thread is gone with the reset, and a seeded mock hands its id out again: the stream ends.
    if (e.type === "reset" && ["all", "store"].includes((e.data as { scope: string }).scope)) return void writer.end();
    if (e.type !== "run.created") return;
    const run = e.data as { run_id: string; thread_id: string };
    if (run.thread_id !== threadId) return;
    queueMicrotask(() => {
      const execution = runs.execution(run.run_id);
      if (execution) followRun(run.run_id, execution, () => true);
    });
  });
  const listeners = listenersOf(ctx, threadId);
  listeners.add(send);
  return () => {
    unsubscribeRuns();
    listeners.delete(send);
    // A thread no stream follows keeps no entry: a mock that joins many threads does not grow.
    if (!listeners.size) threadEvents.get(ctx)?.delete(threadId);
    for (const stop of followed.values()) stop();
  };
}
