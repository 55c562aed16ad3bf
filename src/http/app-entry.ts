import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from "express";
import { runSteps } from "./pipeline.js";

type Entry = (req: IncomingMessage, res: ServerResponse) => void;

/** The mock's apps' entries for its own servers (`entryOf`). */
const entries = new WeakMap<Express, Entry>();

/**
 * Gives `app` — built by createApp as `app.use(pipeline(steps))` then `app.use(onError)` — an entry
 * for the mock's own servers that does what express's `app.handle` and router do for those two
 * layers, without them: the two objects linked, the app's prototypes (already in place for the
 * servers' requests: app-prototypes.ts), `res.locals`, `req.originalUrl` and `req.baseUrl`, then the
 * steps, and the error handler for anything they pass on. Express's router walks its layers with
 * closures and path bookkeeping on every request (~2 KB allocated, about a twentieth of a streamed
 * run's CPU) for what is one layer here. The app itself is unchanged: supertest, or an app that
 * mounts the mock, go through express as before.
 */
export function setAppEntry(app: Express, steps: readonly RequestHandler[], onError: ErrorRequestHandler): void {
  /**
   * The newest request (and, through it, its response and their listeners) stays referenced until the
   * next one replaces it. V8 keeps the hidden classes ("maps") of objects only while some object has
   * them, and a full garbage collection that finds none left also throws away the optimized code
   * built for them: after the last request of a burst, every full GC threw away 15–40 of the hot
   * path's functions (node's socket and stream code among them), and the next ~500 requests ran
   * unoptimized while ~100 functions were compiled again. One request kept alive keeps those maps:
   * a 500-stream burst after a full GC took 0.6× the CPU and wall time (docs/performance.md).
   */
  const kept: { newest: Request | undefined } = { newest: undefined };
  const entry = (rawReq: IncomingMessage, rawRes: ServerResponse): void => {
    const req = rawReq as Request;
    const res = rawRes as Response;
    kept.newest = req;
    if (Object.getPrototypeOf(req) !== app.request) Object.setPrototypeOf(req, app.request);
    if (Object.getPrototypeOf(res) !== app.response) Object.setPrototypeOf(res, app.response);
    req.res = res;
    res.req = req;
    res.locals ??= Object.create(null) as Response["locals"];
    req.originalUrl ??= req.url;
    req.baseUrl = "";
    runSteps(steps, req, res, (err?: unknown) => {
      // The steps end with the 404/405 answer, which passes an error too: there is always one.
      try {
        onError(err ?? new Error("no step answered"), req, res, unanswered(req, res));
      } catch (thrown) {
        unanswered(req, res)(thrown);
      }
    });
  };
  entries.set(app, entry);
}

/** The entry setAppEntry gave `app`, else the app itself (express's own handling). */
export function entryOf(app: Express): Entry {
  return entries.get(app) ?? (app as unknown as Entry);
}

/** What is left when the error handler itself fails (a bug in the mock): a bare 500, never a stack trace. */
function unanswered(req: Request, res: Response): NextFunction {
  return (err?: unknown) => {
    process.stderr.write(`agent-platform-mock: unanswered ${req.method} ${req.originalUrl}: ${(err as Error)?.stack ?? String(err)}\n`);
    if (res.headersSent) res.destroy();
    else res.status(500).json({ detail: "Internal Server Error" });
  };
}
