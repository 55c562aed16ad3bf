import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { MockContext } from "../context.js";
import { cors as corsHandler } from "./cors.js";
import { bodyProblem } from "./json-body.js";
import { jsonBody } from "./json-parser.js";
import { jsonContentOnly } from "./json-content-type.js";
import { readPart } from "./request-input.js";
import { RawJson } from "./raw-json.js";
import { schemas } from "../schemas/registry.js";
import { checkResponse } from "./response-check.js";
import { RouteMatcher, type RouteMatch } from "./route-matcher.js";
import { runSteps } from "./pipeline.js";
import { HttpRequestScope } from "./request-scope.js";
import { Reply, type RouteInput, type RouteSpec } from "./route.js";
import type { RequestProblem, ServiceModule } from "./service-module.js";
import { perProcess } from "../core/memo.js";

/** One route as served: its module, its declaration and the full path (prefix included). */
export interface MountedRoute {
  module: ServiceModule;
  spec: RouteSpec;
  /** OpenAPI form, prefix included: `/agents/{deployment_id}/threads/{thread_id}`. */
  path: string;
  /** The mount prefix it is served under (one of the module's prefixes). */
  prefix: string;
}

/**
 * Serves declared routes. Each route gets, in order: CORS (when the module or route allows browsers),
 * the module's authentication, the body parser its declaration asks for, validation of path, query,
 * headers and body together (one answer listing every problem, in the module's style), the handler
 * with typed input, and — in the test suite — a check of the response against its declared schema.
 * Every route is entered in the context's route table (404 vs 405 with `Allow`) and is the source of
 * the OpenAPI documents.
 */
export class Registrar {
  readonly routes: MountedRoute[] = [];
  /** Each mounted route's middleware chain, by method and path. */
  private readonly matcher = new RouteMatcher<Chain>();

  constructor(private readonly ctx: MockContext) {}

  /**
   * The middleware that serves every declared route: it finds the route with the matcher (instead of
   * express trying ~300 route layers one by one) and runs its chain; a request no route declares goes
   * on to the 404/405 fallback.
   */
  readonly dispatch: RequestHandler = (req, res, next) => {
    let found: RouteMatch<Chain> | undefined;
    try {
      found = this.matcher.match(req.method, req.path);
    } catch (err) {
      return next(err);
    }
    if (!found) return next();
    req.params = found.params;
    const chain = found.value;
    runSteps(chain.handlers ?? this.build(chain as RouteChain), req, res, next);
  };

  /** Serves a module's routes through `dispatch`. */
  add(module: ServiceModule): void {
    // In the test suite (where responses are checked) every declaration is compiled now, so a broken
    // one fails the suite at start. Elsewhere each validator is compiled on the first request that
    // needs it (still once per process): start-up does not pay for the routes a session never calls.
    if (this.ctx.checkResponses) for (const spec of module.routes) compileSchemas(module, spec);
    const cors = corsHandler({ origins: this.ctx.options.corsOrigins });
    const mounted: MountedModule = { module, cors, auth: module.authenticate ? authenticate(module) : undefined, parsers: bodyParsersFor(this.ctx.options.bodyLimit) };
    const preflightPaths = new Set<string>();
    for (const prefix of module.prefixes) {
      const mountNames = new Set(paramNames(prefix));
      for (const spec of module.routes) {
        const path = prefix + spec.path;
        this.routes.push({ module, spec, path, prefix });
        this.ctx.routes.add(spec.method, expressPath(path));
        if (spec.method === "GET") this.ctx.routes.add("HEAD", expressPath(path));
        if (spec.cors ?? module.cors) preflightPaths.add(path);
        this.matcher.add(spec.method, path, { mounted, spec, mountNames, handlers: undefined });
      }
    }
    // A preflight is answered by the CORS handler before anything else (it needs no API key).
    for (const path of preflightPaths) this.matcher.add("OPTIONS", path, { handlers: [cors] });
  }

  /**
   * A route's middleware chain, made on its first request: a mock is started for every test, and a
   * test calls a few of its ~300 routes. Each chain is its route's own (a route under two prefixes
   * has two), and made once.
   */
  private build(chain: RouteChain): RequestHandler[] {
    const { mounted, spec, mountNames } = chain;
    const { module, cors, auth, parsers } = mounted;
    const handlers: RequestHandler[] = [named(spec.name)];
    if (this.ctx.checkResponses) handlers.push(watchResponse(module, spec));
    if (spec.cors ?? module.cors) handlers.push(cors);
    if (auth && !spec.public) handlers.push(auth);
    if (spec.bodyKind !== undefined || spec.body !== undefined || spec.method !== "GET") handlers.push(parseBody(spec.bodyError ?? module.bodyError, parsers[spec.bodyKind ?? "json"]));
    // After the body is read, so that a rule can match on it.
    if (!module.control) handlers.push(this.ctx.faults.middleware(module, spec));
    handlers.push(this.handle(module, spec, mountNames));
    return (chain.handlers = handlers);
  }

  /** Every served route as `{method, path}` (OpenAPI form, prefix included). */
  list(): { method: string; path: string; name: string; module: string }[] {
    return this.routes.map((r) => ({ method: r.spec.method, path: r.path, name: r.spec.name, module: r.module.name }));
  }

  private handle(module: ServiceModule, spec: RouteSpec, mountNames: ReadonlySet<string>): RequestHandler {
    const fail = (err: unknown, next: NextFunction) => next(module.mapError?.(err) ?? err);
    const answer = (res: Response, result: unknown) => {
      if (!res.headersSent && !res.writableEnded) send(res, spec, result);
    };
    return (req, res, next) => {
      try {
        const result = spec.handler(readInput(module, spec, req, this.ctx, mountNames), res);
        // Most handlers answer synchronously: no promise and microtask per request for them.
        if (result instanceof Promise) result.then((value) => answer(res, value)).catch((err: unknown) => fail(err, next));
        else answer(res, result);
      } catch (err) {
        fail(err, next);
      }
    };
  }
}

/** What every route of a module shares: the module and the steps made once for it. */
interface MountedModule {
  module: ServiceModule;
  cors: RequestHandler;
  auth: RequestHandler | undefined;
  parsers: Parsers;
}

/** A mounted route as the matcher finds it; its handlers are made on its first request. */
interface RouteChain {
  mounted: MountedModule;
  spec: RouteSpec;
  mountNames: ReadonlySet<string>;
  handlers: RequestHandler[] | undefined;
}

/** What the matcher finds: a route, or a preflight (whose one handler is given). */
type Chain = RouteChain | { handlers: RequestHandler[] };

/** Marks the response with the route's name (the journal and the request log show it). */
function named(name: string): RequestHandler {
  return (_req, res, next) => {
    res.locals.route = name;
    next();
  };
}

/** Compiles a route's schemas now (once per process), so a broken declaration fails at start, not on a request. */
function compileSchemas(module: ServiceModule, spec: RouteSpec): void {
  const registry = schemas();
  try {
    for (const part of [spec.params, spec.query, spec.headers, spec.body]) if (part !== undefined) registry.validator(part, "request");
    for (const response of [...Object.values(spec.responses), module.errorSchema]) {
      if (response !== null && (typeof response === "string" || !("sse" in response || "text" in response))) registry.validator(response as string | Record<string, unknown>);
    }
  } catch (err) {
    throw new Error(`route ${spec.name} (${spec.method} ${spec.path}) of ${module.name}: ${(err as Error).message}`);
  }
}

function readInput(module: ServiceModule, spec: RouteSpec, req: Request, ctx: MockContext, mountNames: ReadonlySet<string>): RouteInput {
  const problems: RequestProblem[] = [];
  const read = (part: RequestProblem["part"], schema: RouteSpec["params"], raw: unknown): unknown => {
    if (schema === undefined) return part === "body" ? raw : {};
    const { value, problem } = readPart(part, schema, raw);
    if (problem) problems.push(problem);
    return value;
  };
  const routeParams: Record<string, string> = {};
  const mount: Record<string, string> = {};
  for (const name in req.params) (mountNames.has(name) ? mount : routeParams)[name] = (req.params as Record<string, string>)[name] as string;
  const params = read("path", spec.params, routeParams) as Record<string, string>;
  // Express parses the query string again on every read of req.query: read once, and only when asked for.
  const rawQuery: unknown = spec.query !== undefined || module.strictQuery ? req.query : undefined;
  const query = read("query", spec.query, rawQuery);
  if (module.strictQuery) {
    const declared = Object.keys((spec.query !== undefined && (schemas().resolve(spec.query).properties as object)) || {});
    const unknown = Object.keys(rawQuery as object).filter((k) => !declared.includes(k));
    if (unknown.length) problems.push({ part: "query", schema: spec.query ?? {}, data: rawQuery, errors: [], unknown });
  }
  const headers = read("header", spec.headers, req.headers);
  let body: unknown = req.body;
  if (spec.body !== undefined) {
    if (body === undefined && spec.emptyBody === undefined) problems.push({ part: "body", schema: spec.body, data: undefined, errors: [], missing: true });
    else body = read("body", spec.body, body === undefined ? spec.emptyBody : body);
  }
  if (problems.length) throw (spec.invalid ?? module.invalid)(problems);
  return { params, query: query as Record<string, unknown>, headers: headers as Record<string, unknown>, body, scope: new HttpRequestScope(req, ctx, mount) };
}

/** Writes what a handler returned: a Reply as it says, else the body with the first declared status. */
function send(res: Response, spec: RouteSpec, result: unknown): void {
  if (result instanceof Reply) {
    res.status(result.status).set(result.headers);
    if (result.body === undefined) res.end();
    else sendJson(res, result.body);
    return;
  }
  const status = Number(Object.keys(spec.responses)[0] ?? 200);
  res.status(status);
  if (result === undefined || spec.responses[status] === null) res.end();
  else sendJson(res, result);
}

/**
 * Answers JSON with the headers and bytes `res.json` writes (checked like any answer in tests), or as
 * a fault rule that rewrites JSON answers says (`res.locals.writeJsonText`). Text a handler serialised
 * already (RawJson) is sent as it is.
 */
function sendJson(res: Response, body: unknown): void {
  const check = res.locals.checkJson as ((value: unknown) => void) | undefined;
  const rewrite = res.locals.writeJsonText as ((text: string) => void) | undefined;
  if (body instanceof RawJson) {
    check?.(JSON.parse(body.text));
    if (rewrite) rewrite(body.text);
    else writeJson(res, body.text);
    return;
  }
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) {
    res.json(body);
    return;
  }
  check?.(body);
  if (rewrite) rewrite(text);
  else writeJson(res, text);
}

/** Statuses whose answers express sends without a body. */
const BODILESS = new Set([204, 205, 304]);

/**
 * What express's `res.send` writes for a JSON text — `Content-Type: application/json; charset=utf-8`,
 * then `Content-Length` — written directly in the usual case: express would parse and re-format the
 * content type, test freshness (the mock sets no ETag) and copy a text over 1,000 characters into a
 * Buffer first. Anything unusual (a content type or transfer encoding already set, a bodiless status)
 * goes through `res.send`.
 */
function writeJson(res: Response, text: string): void {
  if (res.getHeader("Content-Type") === undefined && res.getHeader("Transfer-Encoding") === undefined && !BODILESS.has(res.statusCode)) {
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(text));
    if (res.req.method === "HEAD") res.end();
    else res.end(text);
    return;
  }
  if (res.getHeader("Content-Type") === undefined) res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.send(text);
}

function authenticate(module: ServiceModule): RequestHandler {
  return (req, _res, next) => next(req.method === "OPTIONS" ? undefined : module.authenticate?.(req.headers));
}

type Parsers = Record<NonNullable<RouteSpec["bodyKind"]>, RequestHandler[]>;

/** The parsers by body limit, shared by every module and mock of the process: they keep nothing between requests. */
const bodyParsersFor = perProcess(bodyParsers);

function bodyParsers(limit: string | undefined): Parsers {
  const json = jsonBody(limit);
  const form = express.urlencoded({ extended: false, limit: limit ?? "1mb" });
  const text = express.text({ type: () => true, limit: limit ?? "1mb" });
  return {
    json: [jsonContentOnly(json, limit)],
    // OAuth endpoints take forms (RFC 6749) and JSON (RFC 7591 registration).
    "json-or-form": [
      (req, res, next) => (/^application\/x-www-form-urlencoded/i.test(req.headers["content-type"] ?? "") ? form(req, res, next) : json(req, res, next)),
    ],
    text: [text],
    raw: [express.raw({ type: () => true, limit: limit ?? "1mb" })],
  };
}

function parseBody(bodyError: ServiceModule["bodyError"], parsers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err) {
        const problem = bodyProblem(err);
        return next(problem ? bodyError(problem) : err);
      }
      const parser = parsers[i++];
      if (parser) parser(req, res, step as NextFunction);
      else next();
    };
    step();
  };
}

/** Checks every JSON answer of the route, errors included, against what it declares (tests only). */
function watchResponse(module: ServiceModule, spec: RouteSpec): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      checkResponse(module, spec, res.statusCode, body);
      return json(body);
    };
    res.locals.checkJson = (body: unknown) => checkResponse(module, spec, res.statusCode, body);
    next();
  };
}

/** `/threads/{thread_id}` → `/threads/:thread_id` (express 5 path syntax); once per path and process. */
export const expressPath = perProcess((path: string): string => path.replace(/\{([^}]+)\}/g, ":$1"));

function paramNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}
