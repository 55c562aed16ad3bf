import { SCHEMA_BASE, schemas } from "../schemas/registry.js";
import { isUuid } from "../core/random.js";
import { setOwn } from "../core/json.js";
import type { SchemaRef } from "./route.js";
import type { RequestPart, RequestProblem } from "./service-module.js";

/**
 * Reads one part of a request against its schema as FastAPI does: path, query and header values are
 * text on the wire and are converted by the rules pydantic uses (only the properties the schema
 * declares are read; a repeated key gives a list to an array parameter and its last value otherwise);
 * bodies are validated on a copy, so the request as sent stays intact for the journal. Undeclared
 * properties of closed objects are dropped, defaults filled, and `format: uuid` values lowercased.
 */
export function readPart(part: RequestPart, schema: SchemaRef, raw: unknown): { value: unknown; problem?: RequestProblem } {
  const registry = schemas();
  const value = part === "body" ? copyOf(raw) : convertStrings(schema, raw as Record<string, unknown>);
  const errors = registry.checkRequest(schema, value);
  if (errors.length) return { value, problem: { part, schema, data: value, errors } };
  canonicalUuids(schema, value);
  return { value };
}

/** A body copy that validation may trim and fill; JSON values only, so a plain recursive copy does. */
function copyOf(value: unknown): unknown {
  return value === undefined ? undefined : structuredClone(value);
}

function convertStrings(schema: SchemaRef, input: Record<string, unknown>): Record<string, unknown> {
  const node = schemas().resolve(schema);
  const properties = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
  const base = typeof schema === "string" ? schema : undefined;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(properties)) {
    const raw = Object.hasOwn(input, name) ? input[name] : undefined;
    if (raw === undefined) continue;
    const resolved = resolveProperty(base, properties[name] as Record<string, unknown>);
    const types = typesOf(resolved);
    if (types.includes("array")) {
      const itemTypes = typesOf(resolveProperty(base, (resolved.items ?? {}) as Record<string, unknown>));
      out[name] = (Array.isArray(raw) ? raw : [raw]).map((v) => coerce(String(v), itemTypes));
    } else {
      const last = Array.isArray(raw) ? raw[raw.length - 1] : raw;
      out[name] = coerce(String(last), types);
    }
  }
  // Names a schema cannot list (say, every `x-*` header) are read as text by `patternProperties`.
  const patterns = Object.keys((node.patternProperties ?? {}) as object).map((p) => new RegExp(p, "u"));
  for (const name of Object.keys(input)) {
    if (Object.hasOwn(properties, name) || !patterns.some((p) => p.test(name))) continue;
    const raw = input[name];
    if (raw !== undefined) setOwn(out, name, String(Array.isArray(raw) ? raw[raw.length - 1] : raw));
  }
  return out;
}

function resolveProperty(base: string | undefined, node: Record<string, unknown>): Record<string, unknown> {
  if (typeof node.$ref === "string") {
    // Relative to the schema document the property sits in: "#/$defs/X" or "other-file.json#/$defs/X".
    const from = base === undefined ? SCHEMA_BASE : base.startsWith("http") ? base : SCHEMA_BASE + base;
    return schemas().resolve(new URL(node.$ref, from).toString());
  }
  const union = (node.anyOf ?? node.oneOf) as Record<string, unknown>[] | undefined;
  const branch = union?.find((b) => b.type !== "null");
  return branch ? resolveProperty(base, branch) : node;
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
 * A value read as pydantic's smart union reads it: a `str` member takes the text as it is; otherwise
 * the first member, in schema order, that can read the text wins (`score=1` → 1, `score=true` → true
 * for number | boolean). Text no member reads is left for validation to refuse.
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

/**
 * Lowercases the values a schema types `format: uuid` (pydantic reads both cases as one UUID; the
 * mock stores them lowercase). Follows properties, items, `$ref` and the branches of unions, each
 * `$ref` against the document it appears in; stops at a fixed depth, as request shapes are shallow.
 */
function canonicalUuids(schema: SchemaRef, value: unknown): void {
  const base = typeof schema === "string" ? absolute(schema) : SCHEMA_BASE;
  walk(typeof schema === "string" ? { $ref: absolute(schema) } : schema, base, value, 0, () => {});
}

function walk(node: Record<string, unknown>, base: string, value: unknown, depth: number, replace: (v: unknown) => void): void {
  if (depth > 12 || value === null || value === undefined) return;
  while (typeof node.$ref === "string") {
    base = new URL(node.$ref, base).toString();
    node = schemas().resolve(base);
  }
  if (node.format === "uuid" && typeof value === "string" && isUuid(value)) return replace(value.toLowerCase());
  for (const branch of ((node.anyOf ?? node.oneOf ?? node.allOf) as Record<string, unknown>[] | undefined) ?? []) walk(branch, base, value, depth + 1, replace);
  for (const key of ["then", "else"] as const) if (node[key] && typeof node[key] === "object") walk(node[key] as Record<string, unknown>, base, value, depth + 1, replace);
  if (Array.isArray(value) && node.items && typeof node.items === "object") {
    value.forEach((item, i) => walk(node.items as Record<string, unknown>, base, item, depth + 1, (v) => (value[i] = v)));
  } else if (typeof value === "object" && !Array.isArray(value) && node.properties && typeof node.properties === "object") {
    const record = value as Record<string, unknown>;
    for (const [key, sub] of Object.entries(node.properties as Record<string, Record<string, unknown>>)) {
      if (Object.hasOwn(record, key)) walk(sub, base, record[key], depth + 1, (v) => (record[key] = v));
    }
  }
}

function absolute(ref: string): string {
  return ref.startsWith("http") ? ref : SCHEMA_BASE + ref;
}
