import type { IncomingHttpHeaders } from "node:http";
import type { ErrorObject } from "ajv";
import type { HttpError } from "./http-error.js";
import type { BodyProblem } from "./json-body.js";
import type { RouteSpec, SchemaRef } from "./route.js";

/** Where a request problem was found, in FastAPI's `loc[0]` words. */
export type RequestPart = "path" | "query" | "header" | "body";

/**
 * One part of a request that failed its schema. `errors` are ajv's (on the converted value in `data`);
 * `missing` marks a body that was required and not sent.
 */
export interface RequestProblem {
  part: RequestPart;
  schema: SchemaRef;
  data: unknown;
  errors: ErrorObject[];
  missing?: boolean;
  /** Query keys the route does not declare (modules with `strictQuery`). */
  unknown?: string[];
}

/**
 * Every service the mock plays (and its own admin API) has this shape. A route added to `routes` gets
 * the module's mount prefixes, authentication, CORS, body parsing and error style with no other edit.
 */
export interface ServiceModule {
  /** `control-plane`, `agent-server`, `tracing`, `fixture-servers`, `admin`: the OpenAPI tag too. */
  name: string;
  /** Where the routes are served; each prefix serves every route (`""`, `/agents/{deployment_id}`). */
  prefixes: readonly string[];
  /** How the module's routes are secured in the real service (documented even when the mock is open). */
  securityScheme?: "apiKey" | "adminToken";
  /** Answers a request the module refuses before validation (API key, admin token), or undefined. */
  authenticate?(headers: IncomingHttpHeaders): HttpError | undefined;
  /** Browsers may call these routes from another origin (a route's own `cors` overrides). */
  cors: boolean;
  /** The module's answer to a body it cannot read. */
  bodyError(problem: BodyProblem): HttpError;
  /** The module's answer to a request that fails its schemas: every problem, in its own style. */
  invalid(problems: readonly RequestProblem[]): HttpError;
  /** The schema of the module's error bodies (checked in tests like every other response). */
  errorSchema: SchemaRef;
  /** Turns an error a handler threw into the module's answer (the admin API maps ControlError). */
  mapError?(err: unknown): unknown;
  /** Query parameters a route does not declare are refused (the admin API's filters). */
  strictQuery?: boolean;
  /**
   * A JSON body is read whatever its Content-Type, as Starlette's `request.json()` does (the agent
   * server); without it only JSON types (or none) are, as FastAPI reads them (json-content-type.ts).
   */
  jsonFromAnyContentType?: boolean;
  /** The mock's own control surface (the admin API): never journaled and never hit by fault rules. */
  control?: boolean;
  routes: readonly RouteSpec[];
  /**
   * Loads the module's fixtures into the store. app.ts calls the modules' seed steps in one explicit
   * order (tenants → integrations → providers → fixture servers → deployments → assistants/graphs),
   * before the start-up snapshot that reset() returns to.
   */
  seed?(): void;
}
