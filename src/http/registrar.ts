import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { Express, NextFunction, Request, RequestHandler, Response } from "express";
import type { MockContext } from "../context.js";
import { schemas } from "../schemas/registry.js";
import { exchangeOf, type Exchange, type MountedRoute, type RouteTarget, type Stage } from "./exchange.js";
import { sseEventsOf, type InjectRequest, type InjectResponse, type RouteSpec } from "./route.js";
import type { ServiceModule } from "./service-module.js";
import { authenticate, cors } from "./stages/authenticate.js";
import { checkOutput } from "./stages/check-output.js";
import { fault } from "./stages/fault.js";
import { handle } from "./stages/handle.js";
import { match, notServed } from "./stages/match.js";
import { readBody } from "./stages/read-body.js";
import { validateInput } from "./stages/validate-input.js";
import { errorAnswer, write } from "./stages/write.js";

export type { MountedRoute } from "./exchange.js";

/**
 * Serves the modules' declared routes. Each request goes through named stages (src/http/stages/):
 * match → CORS and authenticate → read body → fault → validate input → handle → check output → write,
 * carrying one Exchange from stage to stage. Each route's stage list has only the stages it needs,
 * and is made on the route's first request (a mock is started per test, which calls a few of its routes). The route matcher (the context's `routes`) is the one list of routes: it
 * answers the match, 404 and 405, and is the source of the OpenAPI documents.
 */
export class Registrar {
  private app: Express | undefined;
  private readonly stages = new WeakMap<RouteTarget, Stage[]>();

  constructor(private readonly ctx: MockContext) {}

  /** Every mounted route (a route under two prefixes is mounted twice), in order. */
  get routes(): MountedRoute[] {
    return this.ctx.routes.values().filter((t): t is MountedRoute => "spec" in t);
  }

  /** Serves a module's routes. */
  add(module: ServiceModule): void {
    // With answers checked (the test suite) every declaration is compiled now, so a broken one fails
    // at start. Elsewhere each validator is compiled on the first request that needs it (still once per
    // process): start-up does not pay for the routes a session never calls.
    if (this.ctx.checkResponses) for (const spec of module.routes) compileSchemas(module, spec);
    const preflights = new Map<string, RouteTarget>();
    for (const prefix of module.prefixes) {
      const mountNames = new Set(paramNames(prefix));
      for (const spec of module.routes) {
        const route: MountedRoute = { module, spec, path: prefix + spec.path, prefix, mountNames };
        this.ctx.routes.add(spec.method, route.path, route);
        if ((spec.cors ?? module.cors) && !preflights.has(route.path)) preflights.set(route.path, { preflight: this.corsPolicy });
      }
    }
    // A preflight is answered by CORS before anything else (it needs no API key); without one, it is a 405.
    for (const [path, target] of preflights) {
      this.ctx.routes.add("OPTIONS", path, target);
      this.stages.set(target, [cors(this.corsPolicy), (x) => void (x.answer = { value: errorAnswer(notServed(x, this.ctx.routes), x) })]);
    }
  }

  /** Every served route as `{method, path}` (OpenAPI form, prefix included). */
  list(): { method: string; path: string; name: string; module: string }[] {
    return this.routes.map((r) => ({ method: r.spec.method, path: r.path, name: r.spec.name, module: r.module.name }));
  }

  /** The middleware that serves every request from the first stage to the last. */
  readonly middleware: RequestHandler = (req, res) => {
    const x = exchangeOf(res);
    let stages: Stage[];
    try {
      const target = match(x, this.ctx.routes);
      stages = this.stages.get(target) ?? this.stagesOf(target as MountedRoute);
    } catch (err) {
      x.answer = { value: errorAnswer(err, x) };
      return this.finish(x);
    }
    this.run(x, stages, 0);
  };

  /** Serves requests on `app` (createApp), whose request and response prototypes `inject` uses. */
  mountOn(app: Express): void {
    this.app = app;
    app.use(this.middleware);
  }

  /**
   * Runs a request through the routes' stages in-process, without a socket: what a route of the mock
   * calls to reach another of its routes (MCP discovery's fetches of the fixture servers when the mock
   * is not listening on its own origin). It is the same path as a request over HTTP, validation and
   * faults included; it is not journaled.
   */
  readonly inject = (request: InjectRequest): Promise<InjectResponse> => {
    const app = this.app;
    if (!app) return Promise.reject(new Error("inject() before the routes are mounted"));
    return new Promise((resolve, reject) => {
      const body = Buffer.from(request.body ?? "");
      const socket = new Socket();
      const req = new IncomingMessage(socket);
      req.method = request.method.toUpperCase();
      req.url = request.url;
      req.headers = { host: "localhost", ...lowercase(request.headers ?? {}), "content-length": String(body.length) };
      req.push(body);
      req.push(null);
      const res = new InjectedResponse(req, resolve, reject);
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, Object.assign(Object.create(app.response as object) as object, InjectedResponse.methods));
      const expressReq = req as Request;
      const expressRes = res as unknown as Response;
      expressReq.res = expressRes;
      expressRes.req = expressReq;
      expressRes.locals = Object.create(null) as Response["locals"];
      expressReq.originalUrl = request.url;
      this.middleware(expressReq, expressRes, (() => undefined) as NextFunction);
    });
  };

  /** The stages of a route, in order: only those its declaration and module need. */
  private stagesOf(route: MountedRoute): Stage[] {
    const { module, spec } = route;
    const stages: Stage[] = [];
    if (spec.cors ?? module.cors) stages.push(cors(this.corsPolicy));
    if (module.authenticate && !spec.public) stages.push(authenticate(module));
    if (spec.bodyKind !== undefined || spec.body !== undefined || spec.method !== "GET") stages.push(readBody(spec.bodyKind ?? (module.jsonFromAnyContentType ? "any-json" : "json"), this.ctx.options.bodyLimit, spec.bodyError ?? module.bodyError));
    // After the body is read (a rule can match on it) and before validation: a fault plays the
    // network, which fails whatever the request says. The admin API is never faulted.
    if (!module.control) stages.push(fault(this.ctx.faults, this.ctx.clock));
    stages.push(validateInput(this.ctx, this.inject), handle);
    this.stages.set(route, stages);
    return stages;
  }

  private get corsPolicy() {
    return { origins: this.ctx.options.corsOrigins };
  }

  /** Runs the stages from `i` until one answers; synchronous stages run without a promise between them. */
  private run(x: Exchange, stages: Stage[], i: number): void {
    while (i < stages.length && !x.answer) {
      let step: void | Promise<void>;
      try {
        step = (stages[i++] as Stage)(x);
      } catch (err) {
        x.answer = { value: errorAnswer(err, x) };
        break;
      }
      if (step instanceof Promise) {
        step.then(
          () => this.run(x, stages, i),
          (err: unknown) => {
            x.answer = { value: errorAnswer(err, x) };
            this.finish(x);
          },
        );
        return;
      }
    }
    this.finish(x);
  }

  /** The last two stages: check the answer (when asked to), then write it. */
  private finish(x: Exchange): void {
    try {
      if (this.ctx.checkResponses) checkOutput(x);
      write(x, this.ctx.clock, this.ctx.options.streamStallMs);
    } catch (err) {
      // A bug in the mock's own writing: a bare 500 if nothing went out yet, else a closed connection.
      process.stderr.write(`agent-platform-mock: unanswered ${x.req.method} ${x.req.originalUrl}: ${(err as Error)?.stack ?? String(err)}\n`);
      if (x.res.headersSent) x.res.destroy();
      else x.res.status(500).json({ detail: "Internal Server Error" });
    }
  }
}

/**
 * A response with no socket, for `inject`: what is written is kept, and the answer is handed over
 * when it ends.
 */
class InjectedResponse extends ServerResponse {
  chunks: Buffer[] = [];

  constructor(
    req: IncomingMessage,
    readonly done: (answer: InjectResponse) => void,
    readonly failed: (err: Error) => void,
  ) {
    super(req);
  }

  static readonly methods = {
    write(this: InjectedResponse, chunk: string | Buffer): boolean {
      if (!this.headersSent) this.writeHead(this.statusCode);
      this.chunks.push(Buffer.from(chunk));
      return true;
    },
    end(this: InjectedResponse, chunk?: string | Buffer | (() => void)): InjectedResponse {
      if (chunk !== undefined && typeof chunk !== "function") this.chunks.push(Buffer.from(chunk));
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.getHeaders())) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
      this.done({ status: this.statusCode, headers, body: Buffer.concat(this.chunks).toString("utf8") });
      return this;
    },
    /** A hang-up (a fault rule's, a run that drops its connection): as `fetch` sees one, a failed request. */
    destroy(this: InjectedResponse): InjectedResponse {
      this.failed(new Error("the mock closed the connection without an answer"));
      return this;
    },
  };
}

function lowercase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Compiles a route's schemas now (once per process), so a broken declaration fails at start, not on a request. */
function compileSchemas(module: ServiceModule, spec: RouteSpec): void {
  const registry = schemas();
  try {
    for (const part of [spec.params, spec.query, spec.headers, spec.body]) if (part !== undefined) registry.validator(part, "request");
    for (const response of [...Object.values(spec.responses), module.errorSchema]) for (const schema of responseSchemas(response)) registry.validator(schema);
  } catch (err) {
    throw new Error(`route ${spec.name} (${spec.method} ${spec.path}) of ${module.name}: ${(err as Error).message}`);
  }
}

/** The JSON schemas a response declaration names: its body's, or its stream events'. */
function responseSchemas(response: RouteSpec["responses"][number]): (string | Record<string, unknown>)[] {
  if (response === null || (typeof response === "object" && "text" in response)) return [];
  const sse = sseEventsOf(response);
  if (sse !== undefined) return sse === true ? [] : ([sse.data, ...Object.values(sse.events ?? {})].filter((s) => s !== undefined) as (string | Record<string, unknown>)[]);
  return [response as string | Record<string, unknown>];
}

function paramNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}
