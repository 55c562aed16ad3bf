import { SCHEMA_BASE } from "../schemas/registry.js";
import type { HttpError } from "./http-error.js";
import type { StreamFault } from "./faults.js";
import type { BodyProblem } from "./json-body.js";
import type { RequestProblem } from "./service-module.js";

/**
 * A JSON Schema: a reference such as `"agent-server/thread.json#/$defs/Thread"` into src/schemas, or an
 * inline schema object (for small shapes such as path parameters) that may `$ref` those files.
 */
export type SchemaRef = string | JsonSchema;
export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a route answers with for one status: a JSON body schema, `null` (no body), a stream or text. */
export type ResponseSpec = SchemaRef | null | { sse: true | SseEvents } | { text: string };

/**
 * What a stream's events carry, checked like JSON answers: `data` for every event's data, `events` by
 * event name (an event named in neither is not checked). A JSON schema declared for a status that
 * answers with a stream applies to every event's data.
 */
export interface SseEvents {
  data?: SchemaRef;
  events?: Record<string, SchemaRef>;
}

/** A stream declaration's events (`true`: undeclared), or undefined when the declaration is no stream. */
export function sseEventsOf(response: ResponseSpec | undefined): SseEvents | true | undefined {
  return typeof response === "object" && response !== null && "sse" in response ? (response.sse as SseEvents | true) : undefined;
}

/** The request as the handler sees it: validated, converted and defaulted on a copy. */
export interface RouteInput<P = Record<string, string>, Q = Record<string, unknown>, H = Record<string, unknown>, B = unknown> {
  params: P;
  query: Q;
  headers: H;
  body: B;
  scope: RequestScope;
}

/**
 * What domain code may know of the request beyond its validated input: where it was sent, so that
 * URLs the mock hands out point back at it, and the values of the mount prefix.
 */
export interface RequestScope {
  method: string;
  /** The path as sent, prefix included (`/agents/<id>/threads/…`). */
  path: string;
  /** Path and query as sent. */
  url: string;
  /** The mock's origin for this request (the configured public URL, else the Host it was sent to). */
  baseUrl: string;
  /** The tracing service's origin (`{tracing_url}`). */
  tracingUrl: string;
  /** Values of the module's mount prefix, e.g. `{deployment_id}` for `/agents/{deployment_id}`. */
  mount: Record<string, string>;
  /** The socket's local end: where the mock itself listens (outbound fetches to it stay in-process). */
  local: { address: string | undefined; port: number | undefined };
  /** Aborted when the client goes away before the answer is written. */
  signal: AbortSignal;
  /** The body as the client sent it (parsed, before validation trimmed and filled the copy): for records that show the request. */
  sentBody: unknown;
  /** What a fault rule that hit this request does to its stream (the fault stage runs before the handler). */
  streamFault: StreamFault | undefined;
  /** Adds facts to this request's journal entry (the scenario that answered, near misses…). */
  note(facts: Record<string, unknown>): void;
  /**
   * Runs a request to another of the mock's routes in-process, through the same stages as one over
   * HTTP (the fixture MCP servers, when the mock does not listen on the origin a URL names).
   */
  inject(request: InjectRequest): Promise<InjectResponse>;
}

/** A request run through the routes in-process (`RequestScope.inject`). */
export interface InjectRequest {
  method: string;
  /** Path and query: `/_fixtures/mcp/acme/token?x=1`. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What `inject` answers: status, headers (lowercase names) and the body as text. */
export interface InjectResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A JSON answer (or none, without a body) other than the route's first declared status. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function reply(status: number, body?: unknown, headers?: Record<string, string>): Reply {
  return new Reply(status, body, headers);
}

/** A text answer (a page, a metrics text, a file): sent as given under its own Content-Type. */
export class TextReply {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly headers: Record<string, string>,
  ) {}
}

export function text(body: string | Buffer, contentType: string, headers: Record<string, string> = {}, status = 200): TextReply {
  return new TextReply(status, body, { "Content-Type": contentType, ...headers });
}

export function html(body: string, headers: Record<string, string> = {}): TextReply {
  return text(body, "text/html; charset=utf-8", headers);
}

/**
 * Where an event stream writes (the write stage's writer over the response): events in order, with
 * backpressure; heartbeats only while the client keeps up.
 */
export interface SseSink {
  /** One event, framed as the protocol frames it: checked against the route's declared event payloads. */
  event(text: string): void;
  /** Text that is no event payload (a comment, a fault's broken frame), written in order with the events. */
  raw(text: string): void;
  /** A keep-alive comment, skipped while the client is not reading. */
  heartbeat(text: string): void;
  /** Calls `then` once everything written so far has been handed to the socket. */
  flushed(then: () => void): void;
  /** Whether anything was written yet (and with it the answer's head). */
  readonly started: boolean;
  /** Ends the body. */
  end(): void;
  /** Closes the connection with no ending (no final chunk): the client sees a cut body. */
  drop(): void;
}

/** The response headers of an event stream unless the stream says otherwise (sse-starlette's). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-store",
  "X-Accel-Buffering": "no",
};

/**
 * A 200 event stream. `open` is called once the head is written, with the sink to write to; what it
 * returns is called when the connection closes (the client left, or the stream ended). The head goes
 * out with the first event, or alone in the next turn of the event loop when nothing was written by
 * then (`headNow`: at once).
 */
export class SseReply {
  constructor(
    readonly open: (sink: SseSink) => (() => void) | void,
    readonly headers: Record<string, string>,
    readonly stallMs: number | undefined,
    readonly headNow: boolean,
  ) {}
}

export function sse(open: SseReply["open"], options: { headers?: Record<string, string>; stallMs?: number; headNow?: boolean } = {}): SseReply {
  return new SseReply(open, { ...SSE_HEADERS, ...options.headers }, options.stallMs, options.headNow ?? false);
}

/** No answer: the connection is closed (`end`: after what was written; `destroy`: at once; `reset`: with an RST). */
export class HangUp {
  constructor(readonly how: "end" | "destroy" | "reset") {}
}

export function hangUp(how: HangUp["how"] = "end"): HangUp {
  return new HangUp(how);
}

/** What a handler returns (or a promise of it): the body of the first declared status, or one of the answers above. */
export type RouteResult = Reply | TextReply | SseReply | HangUp | unknown;

/** The shapes a declaration's generic names; each defaults to "not declared". */
export interface RouteTypes {
  params?: unknown;
  query?: unknown;
  headers?: unknown;
  body?: unknown;
}

type Of<T extends RouteTypes, K extends keyof RouteTypes, D> = T[K] extends undefined ? D : unknown extends T[K] ? D : T[K];

/**
 * A route as data. The registrar compiles the schemas once, validates path, query, headers and body
 * together (every problem in one answer, in the owning module's error style) and calls the handler with
 * typed input. The handler returns the body of the first declared status, or an answer value —
 * `reply(...)` for another status, `text(...)`/`html(...)`, `sse(...)` for a stream, `hangUp()` — or
 * a promise of one; the write stage writes it.
 */
export interface RouteSpec<T extends RouteTypes = RouteTypes> {
  /** Stable operation name (`threads.get`): the OpenAPI operationId, journal and fault rules use it. */
  name: string;
  method: HttpMethod;
  /** OpenAPI form: `/threads/{thread_id}`; relative to the module's mount prefix. */
  path: string;
  summary?: string;
  params?: SchemaRef;
  query?: SchemaRef;
  /** Header names in lowercase, as node gives them. */
  headers?: SchemaRef;
  body?: SchemaRef;
  /** What a request without a body is validated as: unset = the module's "missing body" answer. */
  emptyBody?: unknown;
  /** How the body is read: JSON (default), JSON or a form (OAuth endpoints), raw text (YAML uploads) or bytes (a Buffer: tarball uploads). */
  bodyKind?: "json" | "json-or-form" | "text" | "raw";
  responses: Record<number, ResponseSpec>;
  /** No API key (token URLs, /info, health checks). */
  public?: boolean;
  /** Overrides the module's CORS policy for this route. */
  cors?: boolean;
  /** Overrides the module's answer to a request that fails this route's schemas (a protocol with its own error envelope). */
  invalid?: (problems: readonly RequestProblem[]) => HttpError;
  /** Overrides the module's answer to a body it cannot read (not JSON, too large). */
  bodyError?: (problem: BodyProblem) => HttpError;
  handler: (input: RouteInput<Of<T, "params", Record<string, string>>, Of<T, "query", Record<string, unknown>>, Of<T, "headers", Record<string, unknown>>, Of<T, "body", unknown>>) => RouteResult | Promise<RouteResult>;
}

/** Declares a route with typed input: `route<{ params: { thread_id: string }; body: ThreadCreate }>({...})`. */
export function route<T extends RouteTypes = RouteTypes>(spec: RouteSpec<T>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** A path parameter that is a UUID (stored lowercase: the registrar canonicalises `format: uuid`). */
export const UUID = { type: "string", format: "uuid" } as const;

/** An inline object schema with the given required string-ish properties. */
export function object(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema {
  return { type: "object", properties, required };
}

/** `{ $ref }` to a schema in src/schemas, for use inside inline schemas. */
export function ref(path: string): JsonSchema {
  return { $ref: SCHEMA_BASE + path };
}

/** An array of the referenced schema. */
export function listOf(path: string): JsonSchema {
  return { type: "array", items: ref(path) };
}
