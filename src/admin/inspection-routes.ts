import { object, route, type JsonSchema, type RouteSpec } from "../http/route.js";
import type { JournalFilter } from "../http/journal.js";
import type { FeedbackFilter, MockControl, RunFilter, WaitOptions } from "../mock-control.js";
import { schemas } from "../schemas/registry.js";

const S = "admin/control.json#/$defs/";

/**
 * What the mock saw: `/_mock/feedback`, `/_mock/requests` and `/_mock/runs` — each a thin adapter over
 * the MockControl method of the same name, lists as `{"items": […], "count": n}` — and
 * `/_mock/wait/{feedback,requests,runs}`, which answer as those once `waitFor` resolves (a long poll).
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
    waitRoute("feedback", "feedback records", `${S}FeedbackQuery`, `${S}FeedbackList`, (filter: FeedbackFilter, options) => control.waitFor.feedback(filter, options)),
    waitRoute("requests", "journaled requests", `${S}RequestsQuery`, `${S}RequestList`, (filter: JournalFilter, options) => control.waitFor.request(filter, options)),
    waitRoute("runs", "runs", `${S}RunsQuery`, `${S}RunList`, (filter: RunFilter, options) => control.waitFor.run(filter, options)),
  ];
}

/**
 * `GET /_mock/wait/<path>`: answers as the listing (`answer`) once `count` items match the filters, a
 * long poll on `waitFor`. Its query is the listing's filters (their schema) plus `count` and `timeout`.
 */
export function waitRoute<F, T>(path: string, what: string, filters: string, listing: string, wait: (filter: F, options: WaitOptions) => Promise<T[]>, answer: (items: T[]) => unknown = list): RouteSpec {
  const properties = (ref: string) => schemas().resolve(ref).properties as Record<string, JsonSchema>;
  return route<{ query: Pick<WaitOptions, "count" | "timeout"> }>({
    name: `admin.wait.${path}`,
    method: "GET",
    path: `/wait/${path}`,
    summary: `Answer once \`count\` ${what} match (408 after \`timeout\` real ms)`,
    query: { type: "object", properties: { ...properties(filters), ...properties(`${S}WaitQuery`) } },
    responses: { 200: listing },
    handler: ({ query: { count, timeout, ...filter }, scope }) =>
      wait(filter as F, { count, timeout, signal: scope.signal }).then(answer, (err: unknown) => {
        // The client hung up: the wait stopped with its signal, and nobody reads an answer.
        if (scope.signal.aborted) return undefined;
        throw err;
      }),
  });
}

function list<T>(items: T[]): { items: T[]; count: number } {
  return { items, count: items.length };
}
