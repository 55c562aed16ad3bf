import { route, type RouteSpec } from "../http/route.js";
import type { JournalFilter } from "../http/journal.js";
import type { MockControl, RunFilter } from "../mock-control.js";
import type { FeedbackFilter } from "../tracing/captured-feedback.js";
import { object } from "../http/route.js";

const S = "admin/control.json#/$defs/";

/**
 * What the mock saw: `/_mock/feedback`, `/_mock/requests` and `/_mock/runs` — each a thin adapter over
 * the MockControl method of the same name, lists as `{"items": […], "count": n}`.
 */
export function inspectionRoutes(control: MockControl): RouteSpec[] {
  return [
    route<{ query: FeedbackFilter }>({
      name: "admin.feedback.list",
      method: "GET",
      path: "/feedback",
      summary: "Captured feedback in arrival order",
      query: `${S}FeedbackQuery`,
      responses: { 200: `${S}FeedbackList` },
      handler: ({ query }) => list(control.feedback(query)),
    }),
    route({
      name: "admin.feedback.clear",
      method: "DELETE",
      path: "/feedback",
      summary: "Forget captured feedback (tokens stay valid)",
      responses: { 200: `${S}FeedbackDeleted` },
      handler: () => ({ ok: true, deleted: control.clearFeedback() }),
    }),
    route<{ query: JournalFilter }>({
      name: "admin.requests.list",
      method: "GET",
      path: "/requests",
      summary: "The request journal, oldest first",
      query: `${S}RequestsQuery`,
      responses: { 200: `${S}RequestList` },
      handler: ({ query }) => list(control.requests(query)),
    }),
    route({
      name: "admin.requests.clear",
      method: "DELETE",
      path: "/requests",
      summary: "Empty the request journal",
      responses: { 200: `${S}Ok` },
      handler: () => {
        control.clearRequests();
        return { ok: true };
      },
    }),
    route<{ query: RunFilter }>({
      name: "admin.runs.list",
      method: "GET",
      path: "/runs",
      summary: "Every run with its request, scenario, status and feedback URLs",
      query: `${S}RunsQuery`,
      responses: { 200: `${S}RunList` },
      handler: ({ query }) => list(control.runs(query)),
    }),
    route<{ params: { run_id: string } }>({
      name: "admin.runs.get",
      method: "GET",
      path: "/runs/{run_id}",
      params: object({ run_id: { type: "string" } }),
      responses: { 200: `${S}AdminRun` },
      handler: ({ params }) => control.run(params.run_id),
    }),
  ];
}

function list<T>(items: T[]): { items: T[]; count: number } {
  return { items, count: items.length };
}
