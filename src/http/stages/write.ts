import type { Response } from "express";
import type { MockClock } from "../../core/clock.js";
import { HttpError } from "../http-error.js";
import { RawJson } from "../raw-json.js";
import { HangUp, Reply, reply, SseReply, TextReply, type SseSink } from "../route.js";
import { DEFAULT_STREAM_STALL_MS, StreamWriter } from "../stream-writer.js";
import type { Exchange } from "../exchange.js";

/**
 * Writes the answer: the only code that writes a response. A JSON body goes out as its text with
 * Content-Type and Content-Length (or as a fault rule rewrites it), text as given, a stream through a
 * StreamWriter that the route's source writes to, a hang-up as a closed socket. Nothing is written
 * to a response that is over (the client left) and an answer that comes after a stream began closes
 * it instead.
 */
export function write(x: Exchange, clock: MockClock, stallMs: number = DEFAULT_STREAM_STALL_MS): void {
  const { res } = x;
  const value = x.answer?.value;
  if (res.writableEnded || res.destroyed) return;
  if (value instanceof HangUp) return hangUp(res, value.how);
  if (res.headersSent) return void res.destroy();
  for (const name in x.headers) res.setHeader(name, x.headers[name] as string);
  if (value instanceof SseReply) return stream(res, value);
  if (value instanceof TextReply) return void res.status(value.status).set(value.headers).send(value.body);
  if (value instanceof Reply) {
    res.status(value.status).set(value.headers);
    if (value.body === undefined) res.end();
    else json(x, value.body, clock, stallMs);
    return;
  }
  const spec = x.route?.spec;
  const status = Number(Object.keys(spec?.responses ?? {})[0] ?? 200);
  res.statusCode = status;
  if (value === undefined || spec?.responses[status] === null) res.end();
  else json(x, value, clock, stallMs);
}

/**
 * The answer to an error: an HttpError as it says; an error with a 4xx status (body-parser's) as
 * `{"detail": message}`; anything else is a bug in the mock: a bare 500 with a fixed body (never a
 * stack trace), reported on stderr.
 */
export function errorAnswer(err: unknown, x: Exchange): Reply {
  if (err instanceof HttpError) return reply(err.status, err.body, err.headers);
  const status = (err as { status?: number } | undefined)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) return reply(status, { detail: (err as Error).message || "Bad Request" });
  process.stderr.write(`agent-platform-mock: internal error on ${x.req.method} ${x.req.originalUrl}: ${(err as Error)?.stack ?? String(err)}\n`);
  return reply(500, { detail: "Internal Server Error" });
}

/** A JSON body, or what a fault rule makes of it (half the text, or the text a few bytes at a time). */
function json(x: Exchange, body: unknown, clock: MockClock, stallMs: number): void {
  const { res } = x;
  // Text a handler serialised already (RawJson) is sent as it is.
  const text = body instanceof RawJson ? body.text : (JSON.stringify(body) as string | undefined);
  const rewrite = x.rewrite;
  if (rewrite?.kind === "malformed") {
    const whole = text ?? "null";
    // Half the JSON, still labelled JSON: the client's parser fails, not its transport.
    res.type("application/json").send(whole.slice(0, Math.max(1, Math.floor(whole.length / 2))));
    return;
  }
  if (rewrite?.kind === "drip") return void drip(res, Buffer.from(text ?? "null"), rewrite.bytes, rewrite.everyMs, clock);
  if (res.getHeader("Content-Type") === undefined) res.setHeader("Content-Type", "application/json; charset=utf-8");
  if (text === undefined) return void res.end();
  // Node's own writing: express's `send` would parse the Content-Type again, look for an ETag function
  // and answer conditional requests, none of which the services do.
  if (!res.hasHeader("Transfer-Encoding")) res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
  // What the socket has not taken is held in memory until the client reads it: as long as a stream's
  // unread events, and no longer (a journal listing can be tens of MB).
  if (res.writableLength > 0) {
    const timer = setTimeout(() => res.destroy(), stallMs);
    // As a stream's: it must not keep a process that is otherwise done alive.
    timer.unref();
    res.once("close", () => clearTimeout(timer));
  }
}

/** Writes the body a few bytes at a time, on the mock's clock. */
async function drip(res: Response, bytes: Buffer, size: number, everyMs: number, clock: MockClock): Promise<void> {
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", String(bytes.length));
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  try {
    for (let at = 0; at < bytes.length; at += size) {
      if (at > 0) await clock.delay(everyMs, controller.signal);
      res.write(bytes.subarray(at, at + size));
    }
    res.end();
  } catch {
    // The client left mid-drip.
  }
}

function hangUp(res: Response, how: HangUp["how"]): void {
  // A response waiting behind a pipelined one has no socket yet; an in-process request has none at all
  // (its request's socket never connected): then the response itself is what closes.
  const socket = res.socket ?? (how !== "end" && res.req.socket.remoteAddress !== undefined ? res.req.socket : null);
  if (!socket) res.destroy();
  else if (how === "reset") socket.resetAndDestroy();
  else if (how === "destroy") socket.destroy();
  else socket.end();
}

/**
 * Starts a 200 event stream and hands the route's source its sink. The head goes out with the first
 * event when that is written in this turn of the event loop or the next (a run starts playing in the
 * next), so a stream of a run costs one socket write, not two; a stream with nothing to say by then
 * sends its head alone, so the client still sees it begin.
 */
function stream(res: Response, answer: SseReply): void {
  res.writeHead(200, answer.headers);
  // A HEAD gets the stream's head alone: nothing is opened that would wait to write a body.
  if (res.req.method === "HEAD") return void res.end();
  const writer = new StreamWriter(res, answer.stallMs);
  if (answer.headNow) res.flushHeaders();
  else {
    setImmediate(() => {
      if (!writer.started && !res.writableEnded && !res.destroyed) res.flushHeaders();
    });
  }
  let close: (() => void) | void;
  res.on("close", () => close?.());
  close = answer.open(responseSink(res, writer));
}

function responseSink(res: Response, writer: StreamWriter): SseSink {
  return {
    event: (text) => writer.event(text),
    raw: (text) => writer.event(text),
    heartbeat: (text) => writer.heartbeat(text),
    flushed: (then) => writer.flushed(then),
    get started() {
      return writer.started;
    },
    end: () => void res.end(),
    drop: () => {
      // A cut before any event still shows the answer's head, as a cut stream does.
      if (!writer.started) res.flushHeaders();
      hangUp(res, "end");
    },
  };
}
