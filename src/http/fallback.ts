import type { ErrorRequestHandler } from "express";
import type { MockClock } from "../core/clock.js";
import { exchangeOf } from "./exchange.js";
import { errorAnswer, write } from "./stages/write.js";

/**
 * The app's error handler, for what the steps before the routes refuse (the admin guard): written by
 * the write stage like any answer. Errors inside a route's stages never reach it.
 */
export function errorHandler(clock: MockClock): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const x = exchangeOf(res);
    x.answer = { value: errorAnswer(err, x) };
    write(x, clock);
  };
}
