import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * Middleware run in order as one express layer. Each step calls `next()` to go on or `next(err)` to
 * hand the error to the app's error handler; a step that throws, or whose promise rejects, is handled
 * like `next(err)`, as express does. After the last step the request goes on to express's `next`.
 *
 * Express's router walks its layers with path matching and bookkeeping at every step; the mock's
 * steps all apply to every path (or check their own), so running them here costs a call each.
 */
export function pipeline(steps: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => runSteps(steps, req, res, next);
}

export function runSteps(steps: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let i = 0;
  const next = (err?: unknown): void => {
    if (err !== undefined && err !== null) return done(err);
    const step = steps[i++];
    if (!step) return done();
    try {
      const result = step(req, res, next) as unknown;
      if (result instanceof Promise) result.catch((e: unknown) => done(e ?? new Error("Rejected promise")));
    } catch (e) {
      done(e);
    }
  };
  next();
}
