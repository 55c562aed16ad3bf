import { HttpError, detailError, validationError } from "./http-error.js";
import { MAX_DEPTH, jsonTextDepth } from "../core/shape-limits.js";

// What is known about request bodies besides the parser (json-parser.ts): the raw bytes, body problems and
// their FastAPI answers. Service catalogues and the journal import these, so this module loads no express
// (`validate` checks fixtures through the services' state without loading the server).

/**
 * body-parser's `verify` hook: keeps the bytes for the journal and refuses deep nesting before
 * JSON.parse runs (the error's `type` is what bodyProblem() recognises).
 */
export function markRaw(req: object, _res: unknown, buf: Buffer): void {
  (req as RawMark)[RAW] = buf;
  if (jsonTextDepth(buf) > MAX_DEPTH) throw Object.assign(new Error(`JSON nested deeper than ${MAX_DEPTH} levels`), { type: TOO_DEEP, status: 422 });
}

const TOO_DEEP = "entity.too.deep";
const RAW = Symbol("raw body");
type RawMark = { [RAW]?: Buffer };

/**
 * The bytes of a body jsonBody() read, as the client sent them (validation later trims and fills the
 * parsed body in place). Undefined when no JSON parser read the request.
 */
export function rawBodyOf(req: object): Buffer | undefined {
  return (req as RawMark)[RAW];
}

/** Why a body could not be read, for a service's catalogue to turn into its own error shape. */
export interface BodyProblem {
  kind: "malformed" | "too_large" | "too_deep";
  /** Character position of a JSON syntax error, when known. */
  position: number;
  message: string;
}

export function bodyProblem(err: unknown): BodyProblem | undefined {
  const e = err as { type?: string; message?: string; body?: string } | undefined;
  if (e?.type === "entity.parse.failed") {
    const at = /position (\d+)/.exec(e.message ?? "")?.[1];
    // "Unexpected end of JSON input" carries no position: the error is at the end of the body.
    const position = at !== undefined ? Number(at) : /end of JSON/.test(e.message ?? "") ? (e.body?.length ?? 0) : 0;
    return { kind: "malformed", position, message: e.message ?? "Invalid JSON" };
  }
  if (e?.type === TOO_DEEP) return { kind: "too_deep", position: 0, message: e.message ?? "JSON nested too deep" };
  if (e?.type === "entity.too.large") return { kind: "too_large", position: 0, message: "Request Entity Too Large" };
  return undefined;
}

/**
 * FastAPI's answer to a body it cannot read: 422 with a `json_invalid` entry at the error's position
 * (413 when too large). The control plane and the tracing service run on the same FastAPI stack.
 */
export function fastApiBodyError(problem: BodyProblem): HttpError {
  if (problem.kind === "too_large") return detailError(413, "Request Entity Too Large");
  if (problem.kind === "too_deep") {
    return validationError([{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ctx: { error: `Nested deeper than ${MAX_DEPTH} levels` } }]);
  }
  return validationError([{ type: "json_invalid", loc: ["body", problem.position], msg: "JSON decode error", input: {}, ctx: { error: jsonDecodeReason(problem.message) } }]);
}

/** Python's json module wording for the most common syntax errors, as FastAPI reports them in ctx.error. */
function jsonDecodeReason(message: string): string {
  if (/Unexpected end|Unterminated/.test(message)) return "Expecting value";
  if (/property name/.test(message)) return "Expecting property name enclosed in double quotes";
  if (/Expected ',' or '}'/.test(message)) return "Expecting ',' delimiter";
  return "Expecting value";
}
