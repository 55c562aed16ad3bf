import type { MockContext } from "../context.js";
import { hangUp, reply, route, sse, type RequestScope, type ResponseSpec, type RouteSpec, type SseReply } from "../http/route.js";
import { agentErrors } from "./errors.js";
import { streamIdOf, type Execution, type Outcome } from "./run-execution.js";
import { runsIn, finalValues, runResponse, type RunCreateBody, type RunRecord, type RunScope, type RunService, type RunStatus } from "./runs.js";
import { errors, headers, RUN, RUN_HEADERS, RUN_PATH, RUN_STREAM, THREAD_PATH } from "./route-schemas.js";
import { HEARTBEAT, sseFrame } from "./sse.js";
import { FaultyStreamWriter } from "./stream-faults.js";
import type { StreamFault } from "../http/faults.js";
import { requireThread } from "./threads-routes.js";
import { selectFields, sortInCreationOrder } from "./pagination.js";

type RunPath = { thread_id: string; run_id: string };
type JoinQuery = { cancel_on_disconnect: boolean; stream_mode?: string[] };

/** What a run-create needs of its request: the route it came in on, as the run record shows it. */
export function runScope(scope: RequestScope, kind: RunScope["kind"], threadId: string | null, sentHeaders: Record<string, unknown> = {}): RunScope {
  const deploymentId = scope.mount.deployment_id ?? null;
  // The route as on the agent server itself: a deployment's `custom_url` prefix is not part of it.
  const path = deploymentId === null ? scope.path : scope.path.replace(/^\/agents\/[^/]+/, "");
  return {
    threadId,
    kind,
    deploymentId,
    route: `${scope.method} ${path}`,
    // Only a run no scenario matches says it.
    get request() {
      return `${scope.method} ${scope.url}`;
    },
    // Asked for only by a run with feedback keys: working it out reads the socket's address.
    get tracingUrl() {
      return scope.tracingUrl;
    },
    sentBody: scope.sentBody,
    headers: sentHeaders,
    note: scope.note,
  };
}

/**
 * The run routes: streamed (`…/runs/stream`), background (`…/runs`) and waited (`…/runs/wait`) runs
 * on a thread or stateless, and reading, cancelling and joining them. A missing run-create body is
 * validated as `null` (the real server's "None is not of type 'object'").
 */
export function runsRoutes(ctx: MockContext, runs: RunService): RouteSpec[] {
  const created: RouteSpec[] = [];
  for (const stateless of [false, true]) {
    const base = stateless ? "/runs" : "/threads/{thread_id}/runs";
    const name = stateless ? "runs.stateless" : "runs";
    // The three ways to create a run differ in their path, their answer and what they do with the run.
    const create = (kind: RunScope["kind"], suffix: string, ok: ResponseSpec, answer: (created: ReturnType<RunService["create"]>, scope: RequestScope) => unknown): RouteSpec =>
      route<{ params: Record<string, string>; body: RunCreateBody; headers: Record<string, unknown> }>({
        name: `${name}.${kind === "background" ? "create" : kind}`,
        method: "POST",
        path: `${base}${suffix}`,
        params: stateless ? undefined : THREAD_PATH,
        body: `${RUN}RunCreate`,
        emptyBody: null,
        headers: RUN_HEADERS,
        responses: { 200: ok, ...errors(400, 404, 409, 422) },
        handler: ({ params, body, headers, scope }) => answer(runs.create(body, runScope(scope, kind, stateless ? null : (params.thread_id as string), headers)), scope),
      });
    created.push(
      create("stream", "/stream", RUN_STREAM, ({ run, execution }, scope) =>
        // Location only on thread routes: that is where the join-stream route exists (DESIGN §2).
        streamRun(run, execution, {
          location: !stateless,
          afterId: -1,
          cancelOnDisconnect: run.on_disconnect === "cancel",
          stallMs: ctx.options.streamStallMs,
          // A fault rule that hit this request wins over the scenario turn's own `faults`.
          fault: scope.streamFault ?? execution.script.fault,
        }),
      ),
      create("background", "", `${RUN}Run`, ({ run }) => reply(200, runResponse(run), { "Content-Location": runPath(run) })),
      create("wait", "/wait", `${RUN}RunValues`, async ({ run, execution }, scope) => {
        const outcome = await outcomeOf(execution, run.on_disconnect === "cancel", scope.signal);
        // A `disconnect` ending drops the run's own connection.
        if (outcome.kind === "disconnect") return hangUp();
        return reply(200, finalValues(outcome), joinHeaders(run));
      }),
    );
  }

  return [
    ...created,
    route<{ params: { thread_id: string }; query: { limit: number; offset: number; status?: RunStatus; select?: string[] } }>({
      name: "runs.list",
      method: "GET",
      path: "/threads/{thread_id}/runs",
      params: THREAD_PATH,
      query: `${RUN}ListRunsQuery`,
      responses: { 200: `${RUN}ThreadRunList`, ...errors(404, 422) },
      handler: ({ params, query }) => {
        const thread = requireThread(ctx, params.thread_id);
        const list = sortInCreationOrder(
          runsIn(ctx).filter((r) => r.thread_id === thread.thread_id && (!query.status || r.status === query.status)),
          (r) => r.created_at,
          "desc",
        );
        const page = list.slice(query.offset, query.offset + query.limit).map(runResponse);
        return query.select ? page.map((run) => selectFields(run, query.select as string[])) : page;
      },
    }),
    route<{ params: RunPath }>({
      name: "runs.get",
      method: "GET",
      path: "/threads/{thread_id}/runs/{run_id}",
      params: RUN_PATH,
      responses: { 200: `${RUN}Run`, ...errors(404, 422) },
      handler: ({ params }) => runResponse(requireRun(ctx, params)),
    }),
    route<{ params: RunPath; query: { wait: boolean; action: "interrupt" | "rollback" } }>({
      name: "runs.cancel",
      method: "POST",
      path: "/threads/{thread_id}/runs/{run_id}/cancel",
      params: RUN_PATH,
      query: `${RUN}CancelQuery`,
      // 202 once asked; 204 once the run is over (`wait=true`).
      responses: { 202: null, 204: null, ...errors(404, 422) },
      handler: async ({ params, query }) => {
        const run = requireRun(ctx, params);
        runs.cancel(run.run_id, query.action);
        if (query.wait) await runs.execution(run.run_id)?.done;
        return reply(query.wait ? 204 : 202);
      },
    }),
    route<{ params: RunPath; query: JoinQuery }>({
      name: "runs.join",
      method: "GET",
      path: "/threads/{thread_id}/runs/{run_id}/join",
      params: RUN_PATH,
      query: `${RUN}JoinQuery`,
      responses: { 200: `${RUN}RunValues`, ...errors(404, 422) },
      handler: async ({ params, query, scope }) => {
        const run = requireRun(ctx, params);
        const execution = runs.execution(run.run_id);
        if (!execution) return reply(200, requireThread(ctx, run.thread_id).values ?? {}, joinHeaders(run));
        return reply(200, finalValues(await outcomeOf(execution, query.cancel_on_disconnect, scope.signal)), joinHeaders(run));
      },
    }),
    route<{ params: RunPath; query: JoinQuery; headers: { "last-event-id"?: string } }>({
      name: "runs.join_stream",
      method: "GET",
      path: "/threads/{thread_id}/runs/{run_id}/stream",
      params: RUN_PATH,
      query: `${RUN}JoinQuery`,
      // A reconnecting EventSource sends the id of the last event it saw; the replay starts after it.
      headers: headers({ "last-event-id": { type: "string" } }),
      responses: { 200: RUN_STREAM, ...errors(404, 422) },
      handler: ({ params, query, headers, scope }) => {
        const run = requireRun(ctx, params);
        const execution = runs.execution(run.run_id);
        if (!execution) throw agentErrors.notFound();
        return streamRun(run, execution, {
          location: false,
          afterId: execution.joinPosition(headers["last-event-id"]),
          modes: joinModes(query.stream_mode),
          cancelOnDisconnect: query.cancel_on_disconnect,
          stallMs: ctx.options.streamStallMs,
          fault: scope.streamFault,
        });
      },
    }),
  ];
}

/** `/threads/{tid}/runs/{rid}`, or `/runs/{rid}` for a stateless run: the Content-Location of its routes. */
function runPath(run: RunRecord): string {
  return run.stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`;
}

/**
 * The headers of a waited or joined run's result, as the Python server's `wait_run` and `join_run`:
 * the run on its thread (a stateless run's temporary thread too) and the join route that answers it
 * again (docs/decisions/conformance-js-vs-python.md notes 11, 14).
 */
function joinHeaders(run: RunRecord): Record<string, string> {
  const path = `/threads/${run.thread_id}/runs/${run.run_id}`;
  return { "Content-Location": path, Location: `${path}/join` };
}

/** The run a path names, on the thread it names: 404 when either does not exist. */
export function requireRun(ctx: MockContext, params: RunPath): RunRecord {
  const thread = requireThread(ctx, params.thread_id);
  const run = runsIn(ctx).get(params.run_id);
  if (!run || run.thread_id !== thread.thread_id) throw agentErrors.notFound();
  return run;
}

interface StreamOptions {
  /** Send `Location: …/stream` for reconnects. */
  location: boolean;
  /** Replay events after this position (-1: all). */
  afterId: number;
  /** Only these modes (a join's `stream_mode`); metadata, feedback and error always pass. */
  modes?: ReadonlySet<string>;
  cancelOnDisconnect: boolean;
  /** Wall-clock ms an unread stream is kept (MockOptions.streamStallMs). */
  stallMs?: number;
  /** What to do to this stream (a fault rule's, or the scenario turn's `faults`). */
  fault?: StreamFault | undefined;
}

/**
 * A run's events as they come; a client that leaves is unsubscribed (and cancels the run if asked).
 * Events carry `id:` lines only when the run is resumable, as on the production server.
 */
function streamRun(run: RunRecord, execution: Execution, options: StreamOptions): SseReply {
  const path = runPath(run);
  const headers: Record<string, string> = options.location ? { "Content-Location": path, Location: `${path}/stream` } : { "Content-Location": path };
  return sse(
    (sink) => {
      let unsubscribe: (() => void) | undefined;
      const writer = new FaultyStreamWriter(sink, options.fault, { stop: () => unsubscribe?.(), drop: () => sink.drop(), endBody: () => sink.end() });
      writer.start();
      if (!writer.stopped) {
        unsubscribe = execution.subscribe(
          {
            frame: (f) => {
              if (options.modes && f.mode !== null && !options.modes.has(f.mode)) return;
              writer.event(execution.script.resumable ? sseFrame(f.event, f.data, streamIdOf(f)) : sseFrame(f.event, f.data));
            },
            heartbeat: () => writer.heartbeat(HEARTBEAT),
            // A drop closes the socket after what was written (no final chunk): the client sees a cut body.
            end: (dropped) => writer.end(dropped),
          },
          options.afterId,
        );
        // A fault during the replay stopped the writer before the unsubscribe existed.
        if (writer.stopped) unsubscribe();
      }
      // The client went away (or the stream ended).
      return () => {
        unsubscribe?.();
        if (!execution.outcome && options.cancelOnDisconnect) execution.cancel("interrupt");
      };
    },
    // Backpressure: a client that does not read is not fed, and is dropped after stallMs.
    { headers, stallMs: options.stallMs },
  );
}

/** The run's outcome once it is over; a client that leaves first cancels it when asked to. */
async function outcomeOf(execution: Execution, cancelOnDisconnect: boolean, signal: AbortSignal): Promise<Outcome> {
  if (cancelOnDisconnect) {
    const cancel = () => {
      if (!execution.outcome) execution.cancel("interrupt");
    };
    signal.addEventListener("abort", cancel, { once: true });
    const outcome = await execution.done;
    signal.removeEventListener("abort", cancel);
    return outcome;
  }
  return execution.done;
}

/** A join's `stream_mode`, without the empty values a client sends for "none given"; undefined when nothing is left. */
function joinModes(modes: readonly string[] | undefined): Set<string> | undefined {
  const named = modes?.filter((mode) => mode !== "");
  return named?.length ? new Set(named) : undefined;
}
