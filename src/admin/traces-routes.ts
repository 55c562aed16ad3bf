import { route, type RouteSpec } from "../http/route.js";
import { waitRoute } from "./inspection-routes.js";
import type { MockControl, TraceFilter } from "../mock-control.js";

const T = "tracing/runs.json#/$defs/";

/** `/_mock/traces`: the runs the tracing service captured — a thin adapter over MockControl. */
export function tracesRoutes(control: MockControl): RouteSpec[] {
  return [
    route<{ query: TraceFilter }>({
      name: "admin.traces.list",
      method: "GET",
      path: "/traces",
      summary: "Captured runs in trace order (by dotted order), with how many the cap dropped",
      query: `${T}TracesQuery`,
      responses: { 200: `${T}CapturedTraceList` },
      handler: ({ query }) => {
        const items = control.traces(query);
        return { items, count: items.length, dropped: control.droppedTraces() };
      },
    }),
    waitRoute("traces", "captured runs", `${T}TracesQuery`, `${T}CapturedTraceList`, (filter: TraceFilter, options) => control.waitFor.trace(filter, options), (items) => ({ items, count: items.length, dropped: control.droppedTraces() })),
    route({
      name: "admin.traces.clear",
      method: "DELETE",
      path: "/traces",
      summary: "Forget captured runs and projects",
      responses: { 200: "admin/control.json#/$defs/FeedbackDeleted" },
      handler: () => ({ ok: true, deleted: control.clearTraces() }),
    }),
  ];
}

