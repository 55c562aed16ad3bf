import type { RequestHandler } from "express";
import type { MockContext } from "../context.js";
import { exchangeOf } from "./exchange.js";

/** One finished request, as `onRequest` (MockOptions) receives it: what the CLI prints per request. */
export interface RequestLogEntry {
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  /** Wall-clock milliseconds from arrival to the last byte (a stream: to its end). */
  durationMs: number;
  /** The scenario whose run answered (run routes only). */
  scenario?: string;
  /** The fault rule that answered or changed the response (docs/faults.md). */
  fault?: { id: string; kind: string };
  /** A `/_mock` admin request. */
  admin: boolean;
  /** The client went away before the response was complete. */
  aborted: boolean;
}

/** A run route's response names its run in Content-Location (`…/runs/{run_id}`). */
const RUN_LOCATION = /\/runs\/([0-9a-f-]{36})$/;

/**
 * Calls `onRequest` once per finished request. Nothing is computed unless a listener is given, and
 * the listener is called after the response is complete, off the request's own path.
 */
export function requestLog(ctx: MockContext, onRequest: ((entry: RequestLogEntry) => void) | undefined): RequestHandler {
  if (!onRequest) return (_req, _res, next) => next();
  return (req, res, next) => {
    const started = performance.now();
    const path = req.originalUrl;
    let done = false;
    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      const location = res.getHeader("content-location");
      const runId = typeof location === "string" ? RUN_LOCATION.exec(location)?.[1] : undefined;
      const scenario = runId ? ctx.data.runs.get(runId)?.scenario : undefined;
      onRequest({ method: req.method, path, status: res.statusCode, durationMs: performance.now() - started, scenario, fault: exchangeOf(res).fault, admin: path.startsWith("/_mock"), aborted });
    };
    res.on("finish", () => finish(false));
    res.on("close", () => finish(!res.writableFinished));
    next();
  };
}
