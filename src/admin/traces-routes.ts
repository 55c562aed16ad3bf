import { route, type RouteSpec } from "../http/route.js";
import { schemas } from "../schemas/registry.js";
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
    route<{ query: TraceFilter & { count?: number; timeout?: number } }>({
      name: "admin.wait.traces",
      method: "GET",
      path: "/wait/traces",
      summary: "Answer once `count` captured runs match (408 after `timeout` real ms)",
      query: { type: "object", properties: { ...propertiesOf(`${T}TracesQuery`), ...propertiesOf("admin/control.json#/$defs/WaitQuery") } },
      responses: { 200: `${T}CapturedTraceList` },
      handler: ({ query: { count, timeout, ...filter }, scope }) =>
        control.waitFor.trace(filter, { count, timeout, signal: scope.signal }).then(
          (items) => ({ items, count: items.length, dropped: control.droppedTraces() }),
          (err: unknown) => {
            // The client hung up: nobody reads an answer.
            if (scope.signal.aborted) return undefined;
            throw err;
          },
        ),
    }),
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

function propertiesOf(ref: string): Record<string, unknown> {
  return schemas().resolve(ref).properties as Record<string, unknown>;
}
