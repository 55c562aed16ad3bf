import { SCHEMA_BASE, schemas } from "../schemas/registry.js";
import { validationError } from "./http-error.js";
import { toPydanticIssues } from "./pydantic-issues.js";

/**
 * Request validation against the JSON Schemas, answering as FastAPI does: 422 with pydantic-style
 * entries. Bodies are validated as sent; query and path values are strings on the wire and are
 * converted first by the rules pydantic uses for them.
 */
export function validateBody<T>(ref: string, body: unknown): T {
  // No body at all: FastAPI reports the whole body as missing, not its fields.
  if (body === undefined) throw validationError([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
  const errors = schemas().checkRequest(ref, body);
  if (errors.length) throw validationError(toPydanticIssues(errors, "body", body));
  return body as T;
}

/**
 * Reads the query parameters a schema declares (unknown ones are ignored, as FastAPI does), converts
 * them and validates. A repeated key gives a list to an array parameter and its last value otherwise.
 */
export function validateQuery<T>(ref: string, query: Record<string, unknown>): T {
  const registry = schemas();
  const schema = registry.resolve(ref);
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const [name, propSchema] of Object.entries(properties)) {
    const raw = query[name];
    if (raw === undefined) continue;
    const resolved = resolveProperty(ref, propSchema);
    const types = typesOf(resolved);
    if (types.includes("array")) {
      const itemTypes = typesOf(resolveProperty(ref, (resolved.items ?? {}) as Record<string, unknown>));
      out[name] = (Array.isArray(raw) ? raw : [raw]).map((v) => coerce(String(v), itemTypes));
    } else {
      const last = Array.isArray(raw) ? raw[raw.length - 1] : raw;
      out[name] = coerce(String(last), types);
    }
  }
  const errors = registry.checkRequest(ref, out);
  if (errors.length) throw validationError(toPydanticIssues(errors, "query", out));
  return out as T;
}

function resolveProperty(ref: string, node: Record<string, unknown>): Record<string, unknown> {
  if (typeof node.$ref === "string") {
    // Relative to the schema document the property sits in: "#/$defs/X" or "other-file.json#/$defs/X".
    return schemas().resolve(new URL(node.$ref, ref.startsWith("http") ? ref : SCHEMA_BASE + ref).toString());
  }
  const union = (node.anyOf ?? node.oneOf) as Record<string, unknown>[] | undefined;
  const branch = union?.find((b) => b.type !== "null");
  return branch ? resolveProperty(ref, branch) : node;
}

/** The non-null types a property accepts, in schema order. */
function typesOf(node: Record<string, unknown>): string[] {
  const t = node.type;
  if (Array.isArray(t)) return t.filter((x) => x !== "null") as string[];
  if (typeof t === "string") return [t];
  if (Array.isArray(node.enum)) return typeof node.enum[0] === "string" ? ["string"] : [];
  return [];
}

const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);

/**
 * A query value read as pydantic's smart union reads it: a `str` member takes the text as it is;
 * otherwise the first member, in schema order, that can read the text wins (`score=1` → 1,
 * `score=true` → true for number | boolean). Text no member reads is left for validation to refuse.
 */
function coerce(text: string, types: readonly string[]): unknown {
  if (types.length === 0 || types.includes("string")) return text;
  for (const type of types) {
    const value = convert(text, type);
    if (value !== undefined) return value;
  }
  return text;
}

function convert(text: string, type: string): unknown {
  switch (type) {
    case "integer":
      return /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : undefined;
    case "number":
      return text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case "boolean": {
      const lower = text.toLowerCase();
      return TRUE.has(lower) ? true : FALSE.has(lower) ? false : undefined;
    }
    default:
      return undefined;
  }
}
