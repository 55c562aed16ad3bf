import type { Response } from "express";
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
export type ResponseSpec = SchemaRef | null | { sse: true } | { text: string };

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
  /** What a fault rule that hit this request does to its stream (the faults middleware runs before the handler). */
  streamFault: StreamFault | undefined;
  /** Adds facts to this request's journal entry (the scenario that answered, near misses…). */
  note(facts: Record<string, unknown>): void;
}

/** An answer other than the route's first declared status. */
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
 * typed input. The handler returns the body of the first declared status, a `reply(...)` for another
 * one, or nothing when it wrote the response itself (streams).
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
  handler: (input: RouteInput<Of<T, "params", Record<string, string>>, Of<T, "query", Record<string, unknown>>, Of<T, "headers", Record<string, unknown>>, Of<T, "body", unknown>>, res: Response) => unknown;
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
