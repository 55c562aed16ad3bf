import type { MockContext } from "../context.js";
import { getOwn, omit, setOwn } from "../core/json.js";
import { reply, route, type RouteSpec } from "../http/route.js";
import { agentErrors } from "./errors.js";
import type { RunService } from "./runs.js";
import { errors, headers, THREAD, THREAD_PATH } from "./route-schemas.js";
import { searchPage } from "./pagination.js";
import { extracted } from "./thread-extract.js";
import { threadsIn, newThread, threadResponse, type ThreadRecord, type ThreadStatus } from "./threads.js";
import { applySupersteps, removeThread, threadMatches, type SuperstepUpdate } from "./thread-operations.js";

interface ThreadCreateBody {
  thread_id?: string;
  metadata: Record<string, unknown>;
  if_exists: "raise" | "do_nothing";
  graph_id?: string;
  supersteps?: { updates: SuperstepUpdate[] }[];
}

interface ThreadPatchBody {
  metadata: Record<string, unknown>;
  ttl?: Record<string, unknown>;
}

interface ThreadSearchBody {
  ids?: string[];
  metadata?: Record<string, unknown>;
  values?: Record<string, unknown>;
  status?: ThreadStatus;
  limit: number;
  offset: number;
  sort_by: "thread_id" | "status" | "created_at" | "updated_at" | "state_updated_at";
  sort_order: "asc" | "desc";
  select?: string[];
  extract?: Record<string, string>;
}

type ThreadPath = { thread_id: string };

/** The thread a path names (its id validated and lowercased by the registrar): 404 when there is none. */
export function requireThread(ctx: MockContext, threadId: string): ThreadRecord {
  const thread = threadsIn(ctx).get(threadId);
  if (!thread) throw agentErrors.notFound();
  return thread;
}

/** `POST /threads`, `GET|PATCH|DELETE /threads/{id}`, `POST /threads/search`. */
export function threadsRoutes(ctx: MockContext, runs: RunService): RouteSpec[] {
  const threads = threadsIn(ctx);
  return [
    route<{ body: ThreadCreateBody }>({
      name: "threads.create",
      method: "POST",
      path: "/threads",
      body: `${THREAD}ThreadCreate`,
      // The SDKs send no body for `threads.create()` without options.
      emptyBody: {},
      responses: { 200: `${THREAD}Thread`, ...errors(409, 422) },
      handler: ({ body }) => {
        const id = body.thread_id ?? ctx.random.uuid4();
        const existing = threads.get(id);
        if (existing) {
          if (body.if_exists === "raise") throw agentErrors.threadExists();
          return threadResponse(existing);
        }
        const metadata = body.graph_id === undefined ? body.metadata : { ...body.metadata, graph_id: body.graph_id };
        const thread = newThread(ctx, id, metadata);
        // Refused before the thread is stored: a thread without a graph cannot take supersteps.
        if (body.supersteps?.some((s) => s.updates.length) && typeof getOwn(metadata, "graph_id") !== "string") throw agentErrors.noGraphForThread(id);
        threads.set(id, thread);
        if (body.supersteps) applySupersteps(ctx, runs, id, body.supersteps);
        return threadResponse(threads.get(id) ?? thread);
      },
    }),
    route<{ body: ThreadSearchBody }>({
      name: "threads.search",
      method: "POST",
      path: "/threads/search",
      body: `${THREAD}ThreadSearchRequest`,
      emptyBody: {},
      responses: { 200: `${THREAD}ThreadSearchResponse`, ...errors(422) },
      handler: ({ body }) => {
        const ids = body.ids && new Set(body.ids);
        const found = threads.filter((t) => (!ids || ids.has(t.thread_id)) && threadMatches(t, body));
        const key = body.sort_by;
        const { extract } = body;
        if (!extract) return searchPage(found, (t) => t[key], threadResponse, body);
        // `extracted` comes with the selected fields too: it is not one of the thread's columns.
        const toWire = (t: ThreadRecord) => {
          const wire = threadResponse(t);
          return { ...wire, extracted: extracted(wire, extract) };
        };
        return searchPage(found, (t) => t[key], toWire, { ...body, select: body.select && [...body.select, "extracted"] });
      },
    }),
    route<{ params: ThreadPath }>({
      name: "threads.get",
      method: "GET",
      path: "/threads/{thread_id}",
      params: THREAD_PATH,
      responses: { 200: `${THREAD}Thread`, ...errors(404, 422) },
      handler: ({ params }) => threadResponse(requireThread(ctx, params.thread_id)),
    }),
    route<{ params: ThreadPath; headers: { prefer?: string }; body: ThreadPatchBody }>({
      name: "threads.update",
      method: "PATCH",
      path: "/threads/{thread_id}",
      params: THREAD_PATH,
      // SDK 1.x `returnMinimal` sends `Prefer: return=minimal` and wants no body (RFC 7240).
      headers: headers({ prefer: { type: "string" } }),
      body: `${THREAD}ThreadPatch`,
      emptyBody: {},
      responses: { 200: `${THREAD}Thread`, 204: null, ...errors(404, 422) },
      handler: ({ params, headers, body }) => {
        const thread = requireThread(ctx, params.thread_id);
        // Top-level keys replace the thread's (Postgres `metadata || patch`, as the real server merges).
        const metadata = omit(thread.metadata, []);
        for (const key of Object.keys(body.metadata)) setOwn(metadata, key, body.metadata[key]);
        const updated = threads.set(thread.thread_id, { ...thread, metadata, updated_at: ctx.clock.now() });
        return /\breturn=minimal\b/.test(headers.prefer ?? "") ? reply(204) : threadResponse(updated);
      },
    }),
    route<{ params: ThreadPath }>({
      name: "threads.delete",
      method: "DELETE",
      path: "/threads/{thread_id}",
      params: THREAD_PATH,
      responses: { 204: null, ...errors(404, 422) },
      handler: ({ params }) => removeThread(ctx, runs, requireThread(ctx, params.thread_id).thread_id),
    }),
  ];
}
