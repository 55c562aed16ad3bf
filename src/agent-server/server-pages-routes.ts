import type { MockContext } from "../context.js";
import { html, route, text, type RouteSpec } from "../http/route.js";
import { DOCS_CSP, DOCS_PAGE } from "./docs-page.js";
import { collectMetrics, metricsJson, metricsPrometheus } from "./server-metrics.js";

/**
 * `GET /metrics` and `GET /docs`, appended to the agent server's routes: the metrics count requests by
 * the templates of `routes` (the module's own), as the real server labels them.
 */
export function withServerPages(ctx: MockContext, routes: RouteSpec[]): RouteSpec[] {
  const paths = new Map(routes.map((r) => [r.name, r.path]));
  return [
    ...routes,
    route<{ query: { format: "prometheus" | "json" } }>({
      name: "system.metrics",
      method: "GET",
      path: "/metrics",
      // The real server's meta routes (/ok, /info, /metrics, /docs) sit outside its API-key check.
      public: true,
      // The real server answers any other format as Prometheus, so the query is read, not validated.
      query: { type: "object", properties: { format: { type: "string" } } },
      responses: { 200: { text: "text/plain; charset=utf-8" } },
      handler: ({ query, scope }) => {
        const metrics = collectMetrics(ctx, (name) => paths.get(name));
        // One 200 with two media types (the document's text/plain and application/json): written as text, so the JSON is not checked against the text declaration.
        if (query.format === "json") return text(JSON.stringify(metricsJson(metrics)), "application/json; charset=utf-8");
        // The real server labels with its project and revision; the mock has the deployment the URL names, if any.
        const labels = { project_id: scope.mount.deployment_id ?? "None", revision_id: "None" };
        return text(metricsPrometheus(metrics, labels), "text/plain; charset=utf-8");
      },
    }),
    route({
      name: "system.docs",
      method: "GET",
      path: "/docs",
      public: true,
      responses: { 200: { text: "text/html; charset=utf-8" } },
      handler: () => html(DOCS_PAGE, { "Content-Security-Policy": DOCS_CSP, "X-Content-Type-Options": "nosniff" }),
    }),
  ];
}
