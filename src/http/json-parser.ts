import type { Request, RequestHandler } from "express";
import express from "express";
import { markRaw, rawBodyOf } from "./json-body.js";

/** Default limit for request bodies; the CLI's --body-limit changes it. */
export const DEFAULT_BODY_LIMIT = "1mb";

/**
 * Parses every request body as JSON whatever its Content-Type (browsers posting feedback often send
 * text/plain to avoid a preflight). An empty body leaves `req.body` undefined. A body nested deeper
 * than MAX_DEPTH is refused before it is parsed (a `too_deep` body problem): nothing downstream —
 * validation, the store, the journal, the response serialiser — has to survive it.
 *
 * The usual request — `Content-Type: application/json` or none, a Content-Length within the limit, no
 * Content-Encoding — is read by `readPlainJson`, which does what body-parser does for it without the
 * rest of its machinery (charset and media-type parsing, iconv, an async resource per request): that
 * was most of the cost of reading a small body. Every other request goes through body-parser.
 */
export function jsonBody(limit: string = DEFAULT_BODY_LIMIT): RequestHandler {
  // The parser reads a zero-length body (Content-Length: 0) as {}; FastAPI sees no body at all.
  const parse = express.json({ limit, strict: false, type: () => true, verify: markRaw });
  const maxBytes = byteLimit(limit);
  return (req, res, next) => {
    const length = plainJsonLength(req, maxBytes);
    if (length !== undefined) return readPlainJson(req, length, next);
    parse(req, res, (err?: unknown) => {
      if (!err && rawBodyOf(req)?.length === 0) req.body = undefined;
      next(err);
    });
  };
}

/** body-parser's `limit` in bytes, as its `bytes` dependency reads `1mb`, `512kb` or a number of bytes. */
function byteLimit(limit: string): number {
  const sized = /^((-|\+)?(\d+(?:\.\d+)?)) *(kb|mb|gb|tb|pb)$/i.exec(limit);
  if (!sized) return parseInt(limit, 10);
  const unit = { kb: 1, mb: 2, gb: 3, tb: 4, pb: 5 }[(sized[4] as string).toLowerCase() as "kb"];
  return Math.floor(1024 ** unit * parseFloat(sized[1] as string));
}

/**
 * The Content-Length of a request readPlainJson can read exactly as body-parser would, else undefined:
 * a body of known length within the limit, not compressed, JSON or untyped (no charset to check),
 * still to be read from a readable socket.
 */
function plainJsonLength(req: Request, maxBytes: number): number | undefined {
  const h = req.headers;
  const type = h["content-type"];
  if (h["transfer-encoding"] !== undefined || h["content-encoding"] !== undefined) return undefined;
  if (type !== undefined && type !== "application/json") return undefined;
  const text = h["content-length"];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const length = Number(text);
  if (!(length <= maxBytes)) return undefined;
  // Nothing left to read (body-parser calls next() at once) or a stream set to decode: body-parser's cases.
  if ((req as { upgrade?: boolean }).upgrade || !req.socket?.readable || !req.readable || req.readableEncoding !== null) return undefined;
  return length;
}

type BodyError = Error & { status?: number; statusCode?: number; expose?: boolean; type?: string; body?: unknown };

/** An error as body-parser hands it on (`http-errors`: the error's own status, else the given one, and the fields). */
function bodyError(err: Error, status: number, fields: Record<string, unknown> = {}): BodyError {
  const e = Object.assign(err, fields) as BodyError;
  e.status = e.statusCode = e.status || e.statusCode || status;
  e.expose = e.status < 500;
  return e;
}

/**
 * Reads and parses a body as body-parser (raw-body, then iconv's UTF-8 decoding, which drops a byte
 * order mark, then JSON.parse) with the same results and errors. node's parser ends a body after
 * exactly Content-Length bytes, so the limit is checked already and the size needs no check; a client
 * that leaves mid-body gets raw-body's `request aborted`, and a request closed without either is left
 * unanswered, as raw-body leaves it.
 */
function readPlainJson(req: Request, length: number, next: (err?: unknown) => void): void {
  if (!("body" in (req as object))) req.body = undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  const cleanup = () => {
    req.removeListener("aborted", onAborted);
    req.removeListener("data", onData);
    req.removeListener("end", onEnd);
    req.removeListener("error", onEnd);
    req.removeListener("close", cleanup);
  };
  const fail = (err: BodyError) => {
    cleanup();
    req.pause();
    next(err);
  };
  const onAborted = () => fail(bodyError(new Error("request aborted"), 400, { code: "ECONNABORTED", expected: length, length, received, type: "request.aborted" }));
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = (err?: Error) => {
    if (err) return fail(bodyError(err, 400));
    cleanup();
    const raw = Buffer.concat(chunks);
    try {
      markRaw(req, undefined, raw);
    } catch (e) {
      return next(bodyError(e as Error, 403, { body: raw, type: (e as BodyError).type ?? "entity.verify.failed" }));
    }
    let text = raw.toString("utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    try {
      req.body = text.length === 0 ? {} : JSON.parse(text);
    } catch (e) {
      return next(bodyError(e as Error, 400, { body: text, type: "entity.parse.failed" }));
    }
    if (raw.length === 0) req.body = undefined;
    next();
  };
  req.on("aborted", onAborted);
  req.on("close", cleanup);
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onEnd);
}
