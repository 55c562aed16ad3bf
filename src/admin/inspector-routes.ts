import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MockContext } from "../context.js";
import { codePath } from "../core/code-root.js";
import type { BusEvent } from "../core/event-bus.js";
import { html, object, route, sse, text, type RouteSpec, type SseSink, type TextReply } from "../http/route.js";
import { STREAM_BUFFER_BYTES } from "../http/stream-writer.js";
import { adminErrors } from "./errors.js";
import type { InspectorData } from "../inspector-data.js";

/** Where the page lives on every mock; `MockServer.inspectorUrl` and the start banner show it. */
export const INSPECTOR_PATH = "/_mock/ui";

/** The inspector's URL on a mock started at `origin` (e.g. `inspectorUrl(mock.url)`). */
export function inspectorUrl(origin: string): string {
  return origin.replace(/\/+$/, "") + INSPECTOR_PATH;
}

const S = "admin/inspector.json#/$defs/";

/** Change-feed clients one mock serves at once; another is answered 503 (docs/security.md). */
export const FEED_MAX_CLIENTS = 32;
/** Bytes of events a feed client may leave unread before it is dropped (docs/security.md): any stream's limit. */
export const FEED_BUDGET_BYTES = STREAM_BUFFER_BYTES;

/** The page's files (the build copies src/admin/inspector to dist/admin/inspector). */
const DIR = codePath("admin", "inspector");
const cache = new Map<string, Buffer>();

/** Everything comes from the mock itself: the policy forbids any other origin, inline script included. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function asset(name: string, type: string): RouteSpec {
  return route({
    name: `admin.inspector.${name.replace(/\W/g, "_")}`,
    method: "GET",
    path: name === "index.html" ? "/ui" : `/ui/${name}`,
    summary: name === "index.html" ? "The browser inspector (docs/inspector.md)" : `The inspector's ${name}`,
    responses: { 200: { text: type } },
    handler: () => {
      let body = cache.get(name);
      if (!body) cache.set(name, (body = readFileSync(join(DIR, name))));
      return text(body, type, { "Content-Security-Policy": CSP, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" });
    },
  });
}

/**
 * The inspector (DESIGN §10): its page and files, the change feed it follows (`GET /_mock/events`) and
 * the views it reads besides the control API.
 */
export function inspectorRoutes(ctx: MockContext, data: InspectorData): RouteSpec[] {
  const open = new Set<SseSink>();
  // A browser tab keeps the feed open; closing the mock must not wait for it.
  ctx.onClose(() => {
    for (const feed of open) feed.end();
    open.clear();
  });
  return [
    asset("index.html", "text/html; charset=utf-8"),
    asset("inspector.js", "text/javascript; charset=utf-8"),
    asset("inspector.css", "text/css; charset=utf-8"),
    route({
      name: "admin.events",
      method: "GET",
      path: "/events",
      summary: "The mock's own changes as server-sent events (docs/inspector.md); nothing is replayed",
      responses: { 200: { sse: true } },
      handler: () => {
        if (open.size >= FEED_MAX_CLIENTS) throw adminErrors.tooManyFeedClients(FEED_MAX_CLIENTS);
        // A client that stops reading is dropped once its unread events pass the stream buffer limit.
        return sse((feed) => {
          feed.raw(": agent-platform-mock change feed\n\nretry: 1000\n\n");
          const unsubscribe = ctx.events.subscribe((e: BusEvent) => feed.event(`event: ${e.type}\nid: ${e.seq}\ndata: ${JSON.stringify(e.data)}\n\n`));
          open.add(feed);
          return () => {
            unsubscribe();
            open.delete(feed);
          };
        }, { stallMs: ctx.options.streamStallMs });
      },
    }),
    route<{ params: { run_id: string } }>({
      name: "admin.runs.events",
      method: "GET",
      path: "/runs/{run_id}/events",
      summary: "A run's events with size, mock-clock instant and offset from its creation",
      params: object({ run_id: { type: "string" } }),
      responses: { 200: `${S}RunEvents` },
      handler: ({ params }) => data.runEvents(params.run_id),
    }),
    route({
      name: "admin.deployments.list",
      method: "GET",
      path: "/deployments",
      summary: "Every deployment with its revisions and the one in flight",
      responses: { 200: `${S}DeploymentsOverview` },
      handler: () => data.deployments(),
    }),
    route({
      name: "admin.options",
      method: "GET",
      path: "/options",
      summary: "The options in force (secrets only as whether they are required)",
      responses: { 200: `${S}OptionsInForce` },
      handler: () => data.options(),
    }),
    route({
      name: "admin.routes",
      method: "GET",
      path: "/routes",
      summary: "The services' routes, for telling which one answered a journaled request",
      responses: { 200: `${S}RouteList` },
      handler: () => data.routes(),
    }),
  ];
}

/** The page `GET /` shows a browser: a short page linking to the inspector. */
export function inspectorHome(): TextReply {
  return html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>agent-platform-mock</title></head>` +
      `<body><h1>agent-platform-mock</h1><p>This is a mock of an agent deployment platform's APIs. See what it saw in the <a href="${INSPECTOR_PATH}">inspector</a>.</p></body></html>`,
    { "Content-Security-Policy": CSP, "Cache-Control": "no-cache" },
  );
}
