import type { Request, Response } from "express";
import type { MockContext } from "../context.js";
import { isUuid } from "../core/random.js";
import { agentErrors } from "./errors.js";
import type { AgentRoutes } from "./index.js";
import type { Execution, StreamListener } from "./run-execution.js";
import { finalValues, runCollection, runResponse, type RunRecord, type RunRoute, type RunService, type RunStatus } from "./runs.js";
import { HEARTBEAT, StreamWriter, openStream, sseFrame } from "./sse.js";
import { requireThread } from "./threads-routes.js";
import { readQuery } from "./validation.js";

const RUN_SCHEMA = "agent-server/run.json#/$defs";

/**
 * The run routes: streamed (`…/runs/stream`), background (`…/runs`) and waited (`…/runs/wait`) runs
 * on a thread or stateless, and reading, cancelling and joining them.
 */
export function runsRoutes(ctx: MockContext, on: AgentRoutes, runs: RunService): void {
  const route = (req: Request, kind: RunRoute["kind"], stateless: boolean): RunRoute => ({
    threadId: stateless ? null : (req.params.thread_id as string),
    kind,
    deploymentId: (req.params.deployment_id as string | undefined) ?? null,
  });

  for (const stateless of [false, true]) {
    const base = stateless ? "/runs" : "/threads/:thread_id/runs";

    on.post(`${base}/stream`, (req, res) => {
      const { run, execution } = runs.create(req, route(req, "stream", stateless));
      // Location only on thread routes: that is where the join-stream route exists (DESIGN §2).
      streamRun(res, run, execution, { ids: !stateless, location: !stateless, afterId: -1, cancelOnDisconnect: run.on_disconnect === "cancel", stallMs: ctx.options.streamStallMs });
    });

    on.post(base, (req, res) => {
      const { run } = runs.create(req, route(req, "background", stateless));
      res.setHeader("Content-Location", runPath(run));
      res.json(runResponse(run));
    });

    on.post(`${base}/wait`, async (req, res) => {
      const { run, execution } = runs.create(req, route(req, "wait", stateless));
      res.setHeader("Content-Location", runPath(run));
      await answerWhenDone(res, execution, run.on_disconnect === "cancel", true);
    });
  }

  on.get("/threads/:thread_id/runs", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    const query = readQuery<{ limit: number; offset: number; status?: RunStatus }>(`${RUN_SCHEMA}/ListRunsQuery`, req.query as Record<string, unknown>);
    const list = runCollection(ctx)
      .filter((r) => r.thread_id === thread.thread_id && (!query.status || r.status === query.status))
      .sort((a, b) => b.created_at - a.created_at || b.run_id.localeCompare(a.run_id));
    res.json(list.slice(query.offset, query.offset + query.limit).map(runResponse));
  });

  on.get("/threads/:thread_id/runs/:run_id", (req, res) => {
    res.json(runResponse(requireRun(ctx, req)));
  });

  on.post("/threads/:thread_id/runs/:run_id/cancel", async (req, res) => {
    const run = requireRun(ctx, req);
    const query = readQuery<{ wait: boolean; action: "interrupt" | "rollback" }>(`${RUN_SCHEMA}/CancelQuery`, req.query as Record<string, unknown>);
    runs.cancel(run.run_id, query.action);
    if (query.wait) await runs.execution(run.run_id)?.done;
    res.status(query.wait ? 204 : 202).end();
  });

  on.get("/threads/:thread_id/runs/:run_id/join", async (req, res) => {
    const run = requireRun(ctx, req);
    const query = readQuery<{ cancel_on_disconnect: boolean }>(`${RUN_SCHEMA}/JoinQuery`, req.query as Record<string, unknown>);
    const execution = runs.execution(run.run_id);
    if (!execution) {
      res.json(requireThread(ctx, run.thread_id).values ?? {});
      return;
    }
    await answerWhenDone(res, execution, query.cancel_on_disconnect, false);
  });

  on.get("/threads/:thread_id/runs/:run_id/stream", (req, res) => {
    const run = requireRun(ctx, req);
    const query = readQuery<{ cancel_on_disconnect: boolean; stream_mode?: string[] }>(`${RUN_SCHEMA}/JoinQuery`, req.query as Record<string, unknown>);
    const execution = runs.execution(run.run_id);
    if (!execution) throw agentErrors.notFound();
    const lastEventId = Number.parseInt(String(req.headers["last-event-id"] ?? "-1"), 10);
    streamRun(res, run, execution, {
      ids: true,
      location: false,
      afterId: Number.isNaN(lastEventId) ? -1 : lastEventId,
      modes: query.stream_mode && new Set(query.stream_mode),
      cancelOnDisconnect: query.cancel_on_disconnect,
      stallMs: ctx.options.streamStallMs,
    });
  });
}

/** `/threads/{tid}/runs/{rid}`, or `/runs/{rid}` for a stateless run: the Content-Location of its routes. */
function runPath(run: RunRecord): string {
  return run.stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`;
}

function requireRun(ctx: MockContext, req: Request): RunRecord {
  const thread = requireThread(ctx, req.params.thread_id as string);
  const runId = req.params.run_id as string;
  if (!isUuid(runId)) throw agentErrors.invalidRunId();
  const run = runCollection(ctx).get(runId.toLowerCase());
  if (!run || run.thread_id !== thread.thread_id) throw agentErrors.notFound();
  return run;
}

interface StreamOptions {
  /** `id:` lines (thread routes only). */
  ids: boolean;
  /** Send `Location: …/stream` for reconnects. */
  location: boolean;
  /** Replay events after this id (-1: all). */
  afterId: number;
  /** Only these modes (a join's `stream_mode`); metadata, feedback and error always pass. */
  modes?: ReadonlySet<string>;
  cancelOnDisconnect: boolean;
  /** Wall-clock ms an unread stream is kept (MockOptions.streamStallMs). */
  stallMs?: number;
}

/** Writes a run's events as they come; a client that leaves is unsubscribed (and cancels the run if asked). */
function streamRun(res: Response, run: RunRecord, execution: Execution, options: StreamOptions): void {
  const path = runPath(run);
  openStream(res, options.location ? { "Content-Location": path, Location: `${path}/stream` } : { "Content-Location": path });
  // Backpressure: a client that does not read is not fed, and is dropped after stallMs (sse.ts).
  const writer = new StreamWriter(res, options.stallMs);
  const listener: StreamListener = {
    frame: (f) => {
      if (!options.modes || f.mode === null || options.modes.has(f.mode)) writer.event(sseFrame(f.event, f.data, options.ids ? f.id : undefined));
    },
    heartbeat: () => writer.heartbeat(HEARTBEAT),
    // A drop closes the socket after what was written (no final chunk): the client sees a cut body.
    end: (dropped) => writer.flushed(() => (dropped ? dropConnection(res) : res.end())),
  };
  let unsubscribe = () => {};
  res.on("close", () => {
    unsubscribe();
    if (!execution.outcome && options.cancelOnDisconnect) execution.cancel("interrupt");
  });
  unsubscribe = execution.subscribe(listener, options.afterId);
}

/** Waits for the run and answers with its final values; a `disconnect` ending drops the run's own connection. */
async function answerWhenDone(res: Response, execution: Execution, cancelOnDisconnect: boolean, ownConnection: boolean): Promise<void> {
  res.on("close", () => {
    if (!execution.outcome && cancelOnDisconnect) execution.cancel("interrupt");
  });
  const outcome = await execution.done;
  if (res.destroyed) return;
  if (outcome.kind === "disconnect" && ownConnection) dropConnection(res);
  else res.json(finalValues(outcome));
}

function dropConnection(res: Response): void {
  if (res.socket) res.socket.end();
  else res.destroy();
}
