import type { ServerResponse } from "node:http";
import type { Request, Response } from "express";
import type { CorsPolicy } from "./cors.js";
import type { StreamFault } from "./faults.js";
import type { RouteInput, RouteSpec } from "./route.js";
import type { ServiceModule } from "./service-module.js";

/** A declared route as served: its module, its declaration, and where it is mounted. */
export interface MountedRoute {
  module: ServiceModule;
  spec: RouteSpec;
  /** OpenAPI form, prefix included: `/agents/{deployment_id}/threads/{thread_id}`. */
  path: string;
  /** The mount prefix it is served under (one of the module's prefixes). */
  prefix: string;
  /** The names of the prefix's parameters (`deployment_id`): path values that are not the route's own. */
  mountNames: ReadonlySet<string>;
}

/** A CORS preflight of a path some route of a browser-facing module serves. */
export interface Preflight {
  preflight: CorsPolicy;
}

/** What the route matcher finds: a route, or a preflight. */
export type RouteTarget = MountedRoute | Preflight;

/** How a fault rule rewrites this request's JSON answer (docs/faults.md). */
export type JsonRewrite = { kind: "malformed" } | { kind: "drip"; bytes: number; everyMs: number };

/**
 * One request on its way through the stages (src/http/stages/): what each stage found, for the next
 * ones and for the journal and the request log, which read it when the response is over.
 */
export interface Exchange {
  readonly req: Request;
  readonly res: Response;
  /** The route that answers (match). */
  route?: MountedRoute;
  /** The answer so far: set by the stage that answers (handle, or an earlier one that answers first). */
  answer?: { value: unknown };
  /** Its path parameters as sent, decoded (match). */
  params?: Record<string, string>;
  /** Its query as sent, parsed (`queryOf`: validate-input and the journal read it). */
  query?: Record<string, unknown>;
  /** Headers every answer of this request carries (CORS). */
  headers: Record<string, string>;
  /** The request as the handler gets it (validate-input). */
  input?: RouteInput;
  /** The fault rule that hit this request (fault). */
  fault?: { id: string; kind: string };
  /** What that rule does to the request's stream, when it is a stream fault. */
  streamFault?: StreamFault;
  /** What that rule does to the request's JSON answer. */
  rewrite?: JsonRewrite;
  /** The answer was made by a fault rule, not by the route (it is not checked against the declaration). */
  faulted?: boolean;
  /** What the mock noted while answering (the journal entry's `note`). */
  note?: Record<string, unknown>;
}

const EXCHANGE = Symbol("exchange");

/** The exchange of a request's response, made on first use (the journal asks before any route is matched). */
export function exchangeOf(res: ServerResponse): Exchange {
  const held = res as ServerResponse & { [EXCHANGE]?: Exchange };
  return (held[EXCHANGE] ??= { req: (res as Response).req, res: res as Response, headers: {} });
}

/**
 * The request's query as sent, parsed once: express parses the query string anew on every read of
 * `req.query`, and validation and the journal both read it.
 */
export function queryOf(x: Exchange): Record<string, unknown> {
  // Without a query string it is `{}`: not worth a parse.
  return (x.query ??= x.req.url.includes("?") ? (x.req.query as Record<string, unknown>) : {});
}

/** Adds facts to the request's journal entry (the scenario that answered, near misses…). */
export function noteOn(res: ServerResponse, facts: Record<string, unknown>): void {
  const x = exchangeOf(res);
  // The request's own object, added to in place: notes come from the mock's code, never from a client.
  if (x.note) Object.assign(x.note, facts);
  else x.note = { ...facts };
}

/**
 * One step of a request's way (src/http/stages/). It reads and adds to the exchange; it answers by
 * setting `answer` (the stages after it are skipped, check-output and write still run) or by
 * throwing (the error becomes the module's answer).
 */
export type Stage = (x: Exchange) => void | Promise<void>;
