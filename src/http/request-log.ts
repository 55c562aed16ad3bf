import type { RequestHandler } from "express";
import { exchangeOf } from "./exchange.js";

/** One finished request, as `onRequest` (MockOptions) receives it: what the CLI prints per request. */
export interface RequestLogEntry {
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  /** Wall-clock milliseconds from arrival to the last byte (a stream: to its end). */
  durationMs: number;
  /** The scenario whose run answered (run routes, streamed or not), as the run noted it for the journal. */
  scenario?: string;
  /** The fault rule that answered or changed the response (docs/faults.md). */
  fault?: { id: string; kind: string };
  /** A `/_mock` admin request. */
  admin: boolean;
  /** The client went away before the response was complete. */
  aborted: boolean;
}

/**
 * Calls `onRequest` once per finished request, after the response is complete, off the request's
 * own path. The app mounts it only when a listener is given.
 */
export function requestLog(onRequest: (entry: RequestLogEntry) => void): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const path = req.originalUrl;
    let done = false;
    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      // The facts the request noted for its journal entry: a run names its scenario there as it starts,
      // whatever way its answer is then written (a stream's head goes out with writeHead).
      const x = exchangeOf(res);
      const noted = x.note?.scenario;
      const scenario = typeof noted === "string" ? noted : undefined;
      onRequest({ method: req.method, path, status: res.statusCode, durationMs: performance.now() - started, scenario, fault: x.fault, admin: path.startsWith("/_mock"), aborted });
    };
    res.on("finish", () => finish(false));
    res.on("close", () => finish(!res.writableFinished));
    next();
  };
}
