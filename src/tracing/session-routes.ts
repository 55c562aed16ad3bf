import type { MockContext } from "../context.js";
import { listOf, route, type RouteSpec } from "../http/route.js";
import type { TracerSessionCreate, TracerSessionListQuery } from "../schemas/types.gen.js";
import { tracingErrors } from "./errors.js";
import { sessionResponse, traceStoreOf } from "./trace-store.js";

const R = "tracing/runs.json#/$defs/";

/**
 * Tracing projects (LangSmith's sessions) as the langsmith client reads them: `GET /sessions?name=`
 * (`readProject({projectName})`, `listRuns({projectName})`), `GET /sessions/{session_id}` and
 * `POST /sessions` (`createProject`). A run ingested with a project name makes the project.
 */
export function sessionRoutes(ctx: MockContext): RouteSpec[] {
  const store = () => traceStoreOf(ctx);
  return [
    route<{ query: TracerSessionListQuery & { offset: number; limit: number } }>({
      name: "sessions.list",
      method: "GET",
      path: "/sessions",
      summary: "List tracing projects, oldest first",
      query: `${R}TracerSessionListQuery`,
      responses: { 200: listOf(`${R}TracerSession`) },
      handler: ({ query }) => {
        const s = store();
        const ids = query.id?.length ? new Set(query.id) : undefined;
        const needle = query.name_contains?.toLowerCase();
        return s
          .sessionList()
          .filter((p) => (query.name == null || p.name === query.name) && (!ids || ids.has(p.id)) && (!needle || p.name.toLowerCase().includes(needle)))
          .slice(query.offset, query.offset + query.limit)
          .map((p) => sessionResponse(p, s.values()));
      },
    }),
    route<{ query: { upsert: boolean }; body: TracerSessionCreate }>({
      name: "sessions.create",
      method: "POST",
      path: "/sessions",
      summary: "Create a tracing project",
      query: `${R}TracerSessionCreateQuery`,
      body: `${R}TracerSessionCreate`,
      responses: { 200: `${R}TracerSession` },
      handler: ({ query, body }) => {
        const s = store();
        const existing = s.sessionList().find((p) => p.name === body.name);
        if (existing && !query.upsert) throw tracingErrors.sessionExists(body.name);
        const session = s.addSession({
          id: existing?.id ?? body.id ?? ctx.random.uuid4(),
          name: body.name,
          description: body.description ?? existing?.description ?? null,
          extra: body.extra ?? existing?.extra ?? null,
          reference_dataset_id: body.reference_dataset_id ?? existing?.reference_dataset_id ?? null,
          start_time: existing?.start_time ?? ctx.clock.now(),
        });
        return sessionResponse(session, s.values());
      },
    }),
    route<{ params: { session_id: string } }>({
      name: "sessions.get",
      method: "GET",
      path: "/sessions/{session_id}",
      summary: "Read a tracing project",
      params: `${R}TracerSessionPath`,
      responses: { 200: `${R}TracerSession` },
      handler: ({ params }) => {
        const s = store();
        const session = s.sessionById(params.session_id);
        if (!session) throw tracingErrors.sessionNotFound();
        return sessionResponse(session, s.values());
      },
    }),
  ];
}
