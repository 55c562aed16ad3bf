import type { MockContext } from "../context.js";
import { isPlainObject, setOwn } from "../core/json.js";
import { object, reply, route, UUID, type RequestScope, type RouteSpec } from "../http/route.js";
import type { CronCountRequest, CronCreate, CronPatch, CronSearch, ThreadCronCreate } from "../schemas/types.gen.js";
import type { Assistants } from "./assistants.js";
import { cronsIn, checkSchedule, cronResponse, nextRunDate, parseEndTime, type CronRecord, type CronScheduler } from "./crons.js";
import { agentErrors } from "./errors.js";
import { searchPage } from "./pagination.js";
import { errors, THREAD_PATH } from "./route-schemas.js";
import { contains } from "../core/contains.js";
import { threadsIn } from "./threads.js";

const CRON = "agent-server/cron.json#/$defs/";
const CRON_PATH = object({ cron_id: UUID });

type SearchBody = CronSearch & Required<Pick<CronSearch, "limit" | "offset" | "sort_by" | "sort_order">>;

/**
 * Crons: `POST /threads/{thread_id}/runs/crons` (runs on that thread), `POST /runs/crons` (a new
 * thread per run), `POST /runs/crons/search`, `POST /runs/crons/count`, `PATCH` and `DELETE
 * /runs/crons/{cron_id}`. The scheduler (crons.ts) fires them on the mock clock.
 */
export function cronsRoutes(ctx: MockContext, scheduler: CronScheduler, assistants: Assistants): RouteSpec[] {
  const crons = cronsIn(ctx);

  /** A new cron from a validated create body; `threadId` null for a stateless one. */
  const create = (body: CronCreate | ThreadCronCreate, threadId: string | null, scope: RequestScope) => {
    const timezone = body.timezone ?? null;
    const now = ctx.clock.now();
    checkSchedule(body.schedule, timezone, now);
    const assistant = assistants.resolve(body.assistant_id);
    // [real] the thread is checked after the schedule and the assistant.
    if (threadId !== null && !threadsIn(ctx).has(threadId)) throw agentErrors.cronThreadNotFound(threadId);
    const cronId = ctx.random.uuid7(now);
    const record: CronRecord = {
      cron_id: cronId,
      assistant_id: assistant.assistant_id,
      thread_id: threadId,
      on_run_completed: threadId === null ? ((body as CronCreate).on_run_completed ?? "delete") : null,
      end_time: body.end_time === undefined ? null : parseEndTime(body.end_time),
      schedule: body.schedule,
      timezone,
      created_at: now,
      updated_at: now,
      payload: cronPayload(scope.sentBody, assistant.assistant_id, cronId),
      next_run_date: nextRunDate(body.schedule, timezone, now),
      metadata: body.metadata ?? {},
      enabled: body.enabled ?? true,
      deployment_id: scope.mount.deployment_id ?? null,
      tracing_url: scope.tracingUrl,
    };
    crons.set(cronId, record);
    scheduler.changed();
    return cronResponse(record);
  };

  const requireCron = (cronId: string): CronRecord => {
    const cron = scheduler.live().find((c) => c.cron_id === cronId);
    if (!cron) throw agentErrors.notFound();
    return cron;
  };

  return [
    route<{ params: { thread_id: string }; body: ThreadCronCreate }>({
      name: "crons.createForThread",
      method: "POST",
      path: "/threads/{thread_id}/runs/crons",
      params: THREAD_PATH,
      body: `${CRON}ThreadCronCreate`,
      responses: { 200: `${CRON}Cron`, ...errors(404, 422) },
      handler: ({ params, body, scope }) => create(body, params.thread_id, scope),
    }),
    route<{ body: CronCreate }>({
      name: "crons.create",
      method: "POST",
      path: "/runs/crons",
      body: `${CRON}CronCreate`,
      responses: { 200: `${CRON}Cron`, ...errors(404, 422) },
      handler: ({ body, scope }) => create(body, null, scope),
    }),
    route<{ body: SearchBody }>({
      name: "crons.search",
      method: "POST",
      path: "/runs/crons/search",
      body: `${CRON}CronSearch`,
      emptyBody: {},
      responses: { 200: `${CRON}CronSearchResponse`, ...errors(422) },
      handler: ({ body }) => {
        const found = scheduler
          .live()
          .filter((c) => matches(c, body) && (body.enabled === undefined || c.enabled === body.enabled));
        const key = body.sort_by;
        // [real] Postgres order: NULLs sort as larger than every value (last ascending, first descending).
        // An empty `select` is every field, as there.
        return searchPage(found, (c) => c[key], cronResponse, { ...body, select: body.select?.length ? body.select : undefined });
      },
    }),
    route<{ body: CronCountRequest }>({
      name: "crons.count",
      method: "POST",
      path: "/runs/crons/count",
      body: `${CRON}CronCountRequest`,
      emptyBody: {},
      responses: { 200: `${CRON}CronCount`, ...errors(404, 422) },
      handler: ({ body }) => scheduler.live().filter((c) => matches(c, body)).length,
    }),
    route<{ params: { cron_id: string }; body: CronPatch }>({
      name: "crons.update",
      method: "PATCH",
      path: "/runs/crons/{cron_id}",
      params: CRON_PATH,
      body: `${CRON}CronPatch`,
      responses: { 200: `${CRON}Cron`, ...errors(404, 422) },
      handler: ({ params, body, scope }) => {
        const cron = requireCron(params.cron_id);
        const schedule = body.schedule ?? cron.schedule;
        const timezone = body.timezone ?? cron.timezone;
        const now = ctx.clock.now();
        checkSchedule(schedule, timezone, now);
        // A new schedule counts from now; so does a cron switched back on (what it missed is not made up).
        const reschedule = schedule !== cron.schedule || timezone !== cron.timezone || (body.enabled === true && !cron.enabled);
        const metadata = { ...cron.metadata };
        for (const [key, value] of Object.entries(body.metadata ?? {})) setOwn(metadata, key, value);
        const updated = crons.set(cron.cron_id, {
          ...cron,
          schedule,
          timezone,
          end_time: body.end_time === undefined ? cron.end_time : body.end_time === null ? null : parseEndTime(body.end_time),
          // Only a stateless cron has a thread to keep or delete.
          on_run_completed: cron.thread_id === null ? (body.on_run_completed ?? cron.on_run_completed) : null,
          enabled: body.enabled ?? cron.enabled,
          metadata,
          payload: patchedPayload(cron, scope.sentBody, body.metadata === undefined ? undefined : metadata),
          next_run_date: reschedule ? nextRunDate(schedule, timezone, now) : cron.next_run_date,
          updated_at: now,
        });
        scheduler.changed();
        return cronResponse(updated);
      },
    }),
    route<{ params: { cron_id: string } }>({
      name: "crons.delete",
      method: "DELETE",
      path: "/runs/crons/{cron_id}",
      params: CRON_PATH,
      // [real] `Response(status_code=204)`, as the other deletes (the document says 200).
      responses: { 204: null, ...errors(404, 422) },
      handler: ({ params }) => {
        crons.delete(requireCron(params.cron_id).cron_id);
        return reply(204);
      },
    }),
  ];
}

/**
 * What each firing will send as its run-create body: the body as the client sent it, with the
 * assistant resolved to its UUID and `config.configurable.cron_id` added (real `Crons.put`).
 */
function cronPayload(sent: unknown, assistantId: string, cronId: string): Record<string, unknown> {
  const payload: Record<string, unknown> = isPlainObject(sent) ? { ...sent } : {};
  payload.assistant_id = assistantId;
  const config: Record<string, unknown> = isPlainObject(payload.config) ? { ...payload.config } : {};
  const configurable: Record<string, unknown> = isPlainObject(config.configurable) ? { ...config.configurable } : {};
  configurable.cron_id = cronId;
  config.configurable = configurable;
  payload.config = config;
  return payload;
}

/**
 * The payload after a patch: every field sent replaces the payload's (the payload stays the body a
 * client would send for the cron as it now is), except metadata, which is the cron's merged one.
 */
function patchedPayload(cron: CronRecord, sent: unknown, metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  const payload: Record<string, unknown> = { ...cron.payload };
  if (isPlainObject(sent)) for (const [key, value] of Object.entries(sent)) setOwn(payload, key, value);
  if (metadata !== undefined) payload.metadata = metadata;
  return cronPayload(payload, cron.assistant_id, cron.cron_id);
}

/** The filters search and count share: assistant, thread and contained metadata. */
function matches(cron: CronRecord, filter: CronCountRequest): boolean {
  return (
    (!filter.assistant_id || cron.assistant_id === filter.assistant_id) &&
    (!filter.thread_id || cron.thread_id === filter.thread_id) &&
    (!filter.metadata || contains(cron.metadata, filter.metadata))
  );
}
