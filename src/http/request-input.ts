import { SCHEMA_BASE, schemas } from "../schemas/registry.js";
import { isUuid } from "../core/random.js";
import { copyJson, setOwn } from "../core/json.js";
import type { ValidateFunction } from "ajv";
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
  const reader = readerOf(schema);
  const value = part === "body" ? copyOf(raw) : convertStrings(reader, raw as Record<string, unknown>);
  if (!reader.request(value)) return { value, problem: { part, schema, data: value, errors: [...(reader.request.errors ?? [])] } };
  reader.defaults(value);
  // The part itself is an object (or a list): its own value is never replaced, only what it holds.
  if (reader.uuidRoot) walk(reader.uuidRoot.node, reader.uuidRoot.base, { value }, "value", 0);
  return { value };
}

/**
 * What reading a part against one schema needs, worked out on the first request that uses the schema
 * (schemas are static): the declared properties with their types, the compiled validators, and whether
 * any `format: uuid` value can be in it. Every request after that only converts and validates.
 */
interface PartReader {
  properties: { name: string; array: boolean; types: string[]; itemTypes: string[] }[];
  declared: ReadonlySet<string>;
  patterns: RegExp[];
  /** Validates as pydantic reads (undeclared properties of closed objects dropped). */
  request: ValidateFunction;
  /** Fills schema defaults into data `request` accepted. */
  defaults: ValidateFunction;
  /** Where `format: uuid` values are looked for (undefined when the schema has none): the part's schema node and its base. */
  uuidRoot: { node: Record<string, unknown>; base: string } | undefined;
}

const readers = new Map<string, PartReader>();
const inlineReaders = new WeakMap<object, PartReader>();

function readerOf(schema: SchemaRef): PartReader {
  let reader = typeof schema === "string" ? readers.get(schema) : inlineReaders.get(schema);
  if (!reader) {
    reader = makeReader(schema);
    if (typeof schema === "string") readers.set(schema, reader);
    else inlineReaders.set(schema, reader);
  }
  return reader;
}

function makeReader(schema: SchemaRef): PartReader {
  const registry = schemas();
  const node = registry.resolve(schema);
  const declared = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
  const base = typeof schema === "string" ? schema : undefined;
  const root = typeof schema === "string" ? { node: { $ref: absolute(schema) }, base: absolute(schema) } : { node: schema, base: SCHEMA_BASE };
  const properties = Object.keys(declared).map((name) => {
    const resolved = resolveProperty(base, declared[name] as Record<string, unknown>);
    const types = typesOf(resolved);
    const array = types.includes("array");
    return { name, array, types, itemTypes: array ? typesOf(resolveProperty(base, (resolved.items ?? {}) as Record<string, unknown>)) : [] };
  });
  return {
    properties,
    declared: new Set(Object.keys(declared)),
    patterns: Object.keys((node.patternProperties ?? {}) as object).map((p) => new RegExp(p, "u")),
    request: registry.validator(schema, "request"),
    defaults: registry.validator(schema, "defaults"),
    uuidRoot: mentionsUuid(root.node, root.base, new Set()) ? root : undefined,
  };
}

/** A body copy that validation may trim and fill; JSON values only, so a plain recursive copy does. */
function copyOf(value: unknown): unknown {
  return Buffer.isBuffer(value) ? value : copyJson(value);
}

function convertStrings(reader: PartReader, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, array, types, itemTypes } of reader.properties) {
    const raw = Object.hasOwn(input, name) ? input[name] : undefined;
    if (raw === undefined) continue;
    if (array) {
      out[name] = (Array.isArray(raw) ? raw : [raw]).map((v) => coerce(String(v), itemTypes));
    } else {
      const last = Array.isArray(raw) ? raw[raw.length - 1] : raw;
      out[name] = coerce(String(last), types);
    }
  }
  // Names a schema cannot list (say, every `x-*` header) are read as text by `patternProperties`.
  if (reader.patterns.length === 0) return out;
  for (const name of Object.keys(input)) {
    if (reader.declared.has(name) || !reader.patterns.some((p) => p.test(name))) continue;
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
 * Lowercases `holder[key]`, and the values it holds, where the schema types them `format: uuid`
 * (pydantic reads both cases as one UUID; the mock stores them lowercase). Follows properties, items,
 * `$ref` and the branches of unions, each `$ref` against the document it appears in; stops at a fixed
 * depth, as request shapes are shallow.
 */
function walk(node: Record<string, unknown>, base: string, holder: Record<string | number, unknown>, key: string | number, depth: number): void {
  const value = holder[key];
  if (depth > 12 || value === null || value === undefined) return;
  while (typeof node.$ref === "string") ({ node, base } = followRef(node, base));
  if (node.format === "uuid" && typeof value === "string" && isUuid(value)) {
    holder[key] = value.toLowerCase();
    return;
  }
  for (const branch of ((node.anyOf ?? node.oneOf ?? node.allOf) as Record<string, unknown>[] | undefined) ?? []) walk(branch, base, holder, key, depth + 1);
  for (const k of ["then", "else"] as const) if (node[k] && typeof node[k] === "object") walk(node[k] as Record<string, unknown>, base, holder, key, depth + 1);
  if (Array.isArray(value) && node.items && typeof node.items === "object") {
    for (let i = 0; i < value.length; i++) walk(node.items as Record<string, unknown>, base, value as unknown as Record<number, unknown>, i, depth + 1);
  } else if (typeof value === "object" && !Array.isArray(value) && node.properties && typeof node.properties === "object") {
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(node.properties)) {
      if (Object.hasOwn(record, name)) walk((node.properties as Record<string, Record<string, unknown>>)[name] as Record<string, unknown>, base, record, name, depth + 1);
    }
  }
}

/** Whether a `format: uuid` value can appear anywhere in data of this schema (decided once per schema). */
function mentionsUuid(node: Record<string, unknown>, base: string, seen: Set<Record<string, unknown>>): boolean {
  if (seen.has(node)) return false;
  seen.add(node);
  while (typeof node.$ref === "string") ({ node, base } = followRef(node, base));
  if (node.format === "uuid") return true;
  const children: unknown[] = [...(((node.anyOf ?? node.oneOf ?? node.allOf) as unknown[] | undefined) ?? []), node.then, node.else, node.items, ...Object.values((node.properties as object | undefined) ?? {})];
  return children.some((child) => child !== null && typeof child === "object" && !Array.isArray(child) && mentionsUuid(child as Record<string, unknown>, base, seen));
}

const followed = new WeakMap<object, Map<string, { node: Record<string, unknown>; base: string }>>();

/** A node's `$ref` resolved against the document it appears in (memoised by node: URL parsing per request adds up). */
function followRef(node: Record<string, unknown>, base: string): { node: Record<string, unknown>; base: string } {
  let byBase = followed.get(node);
  if (!byBase) followed.set(node, (byBase = new Map()));
  let target = byBase.get(base);
  if (!target) {
    const url = new URL(node.$ref as string, base).toString();
    target = { node: schemas().resolve(url), base: url };
    byBase.set(base, target);
  }
  return target;
}

function absolute(ref: string): string {
  return ref.startsWith("http") ? ref : SCHEMA_BASE + ref;
}
