import type { MockContext } from "../context.js";
import { omit, setOwn } from "../core/json.js";
import { isUuid } from "../core/random.js";
import { deleteCheckpoints } from "./checkpoints.js";
import { agentErrors } from "./errors.js";
import { contains, selectFields } from "./search-filters.js";
import type { AgentRoutes } from "./index.js";
import { runCollection, type RunService } from "./runs.js";
import { newThread, threadCollection, threadResponse, type ThreadRecord, type ThreadStatus } from "./threads.js";
import { readBody } from "./validation.js";

interface ThreadCreateBody {
  thread_id?: string;
  metadata: Record<string, unknown>;
  if_exists: "raise" | "do_nothing";
  graph_id?: string;
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
}

/** The thread a path names: 422 when it is not a UUID, 404 when there is none. */
export function requireThread(ctx: MockContext, threadId: string): ThreadRecord {
  if (!isUuid(threadId)) throw agentErrors.invalidThreadId();
  const thread = threadCollection(ctx).get(threadId.toLowerCase());
  if (!thread) throw agentErrors.notFound();
  return thread;
}

/** `POST /threads`, `GET|PATCH|DELETE /threads/{id}`, `POST /threads/search`. */
export function threadsRoutes(ctx: MockContext, on: AgentRoutes, runs: RunService): void {
  const threads = threadCollection(ctx);

  on.post("/threads", (req, res) => {
    const body = readBody<ThreadCreateBody>("agent-server/thread.json#/$defs/ThreadCreate", req.body ?? {});
    const id = body.thread_id?.toLowerCase() ?? ctx.random.uuid4();
    const existing = threads.get(id);
    if (existing) {
      if (body.if_exists === "raise") throw agentErrors.threadExists();
      res.json(threadResponse(existing));
      return;
    }
    const metadata = body.graph_id === undefined ? body.metadata : { ...body.metadata, graph_id: body.graph_id };
    res.json(threadResponse(threads.set(id, newThread(ctx, id, metadata))));
  });

  on.post("/threads/search", (req, res) => {
    const body = readBody<ThreadSearchBody>("agent-server/thread.json#/$defs/ThreadSearchRequest", req.body ?? {});
    const ids = body.ids && new Set(body.ids.map((i) => i.toLowerCase()));
    const found = threads.filter(
      (t) =>
        !t.temporary &&
        (!ids || ids.has(t.thread_id)) &&
        (!body.status || t.status === body.status) &&
        (!body.metadata || contains(t.metadata, body.metadata)) &&
        (!body.values || contains(t.values ?? {}, body.values)),
    );
    const key = body.sort_by;
    const sign = body.sort_order === "asc" ? 1 : -1;
    found.sort((a, b) => sign * (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) || sign * a.thread_id.localeCompare(b.thread_id));
    const page = found.slice(body.offset, body.offset + body.limit).map(threadResponse);
    res.json(body.select ? page.map((t) => selectFields(t, body.select as string[])) : page);
  });

  on.get("/threads/:thread_id", (req, res) => {
    res.json(threadResponse(requireThread(ctx, req.params.thread_id as string)));
  });

  on.patch("/threads/:thread_id", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    const body = readBody<ThreadPatchBody>("agent-server/thread.json#/$defs/ThreadPatch", req.body ?? {});
    // Top-level keys replace the thread's (Postgres `metadata || patch`, as the real server merges).
    const metadata = omit(thread.metadata, []);
    for (const key of Object.keys(body.metadata)) setOwn(metadata, key, body.metadata[key]);
    const updated = threads.set(thread.thread_id, { ...thread, metadata, updated_at: ctx.clock.now() });
    // SDK 1.x `returnMinimal` asks for no body (RFC 7240).
    if (/\breturn=minimal\b/.test(req.get("prefer") ?? "")) res.status(204).end();
    else res.json(threadResponse(updated));
  });

  on.delete("/threads/:thread_id", (req, res) => {
    const thread = requireThread(ctx, req.params.thread_id as string);
    runs.deleteThread(thread.thread_id);
    const runRecords = runCollection(ctx);
    for (const run of runRecords.filter((r) => r.thread_id === thread.thread_id)) runRecords.delete(run.run_id);
    threads.delete(thread.thread_id);
    deleteCheckpoints(ctx, thread.thread_id);
    res.status(204).end();
  });
}
