import type { RequestHandler } from "express";
import type { MockClock } from "../core/clock.js";
import { exchangeOf } from "./exchange.js";
import type { TextReply } from "./route.js";
import { write } from "./stages/write.js";

/**
 * `GET /` from a browser (a request that prefers HTML): the given page. Anything else passes on, so
 * API clients keep the services' own 404.
 */
export function homePage(page: TextReply, clock: MockClock): RequestHandler {
  return (req, res, next) => {
    if (req.path !== "/" || req.method !== "GET" || req.accepts(["application/json", "text/html"]) !== "text/html") return next();
    const x = exchangeOf(res);
    x.answer = { value: page };
    write(x, clock);
  };
}
