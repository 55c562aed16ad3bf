import { object, route, type JsonSchema, type RouteSpec } from "../http/route.js";
import type { JournalFilter } from "../http/journal.js";
import type { FeedbackFilter, MockControl, RunFilter, WaitOptions } from "../mock-control.js";
import { schemas } from "../schemas/registry.js";

const S = "admin/control.json#/$defs/";

type Wait<F> = { query: F & Pick<WaitOptions, "count" | "timeout"> };

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
    route<Wait<FeedbackFilter>>({
      name: "admin.wait.feedback",
      method: "GET",
      path: "/wait/feedback",
      summary: "Answer once `count` feedback records match (408 after `timeout` real ms)",
      query: waitQuery("FeedbackQuery"),
      responses: { 200: `${S}FeedbackList` },
      handler: ({ query: { count, timeout, ...filter }, scope }) => answerWait(scope.signal, control.waitFor.feedback(filter, { count, timeout, signal: scope.signal })),
    }),
    route<Wait<JournalFilter>>({
      name: "admin.wait.requests",
      method: "GET",
      path: "/wait/requests",
      summary: "Answer once `count` journaled requests match (408 after `timeout` real ms)",
      query: waitQuery("RequestsQuery"),
      responses: { 200: `${S}RequestList` },
      handler: ({ query: { count, timeout, ...filter }, scope }) => answerWait(scope.signal, control.waitFor.request(filter, { count, timeout, signal: scope.signal })),
    }),
    route<Wait<RunFilter>>({
      name: "admin.wait.runs",
      method: "GET",
      path: "/wait/runs",
      summary: "Answer once `count` runs match (408 after `timeout` real ms)",
      query: waitQuery("RunsQuery"),
      responses: { 200: `${S}RunList` },
      handler: ({ query: { count, timeout, ...filter }, scope }) => answerWait(scope.signal, control.waitFor.run(filter, { count, timeout, signal: scope.signal })),
    }),
  ];
}

/** A listing's filters (its query schema) plus `count` and `timeout` (WaitQuery): one declaration of each. */
function waitQuery(listing: string): JsonSchema {
  const registry = schemas();
  const properties = (def: string) => registry.resolve(`${S}${def}`).properties as Record<string, JsonSchema>;
  return { type: "object", properties: { ...properties(listing), ...properties("WaitQuery") } };
}

/** A wait's listing; nothing when the client hung up (the wait stopped with its signal, and nobody reads an answer). */
function answerWait<T>(signal: AbortSignal, waiting: Promise<T[]>): Promise<{ items: T[]; count: number } | undefined> {
  return waiting.then(list, (err: unknown) => {
    if (signal.aborted) return undefined;
    throw err;
  });
}

function list<T>(items: T[]): { items: T[]; count: number } {
  return { items, count: items.length };
}
