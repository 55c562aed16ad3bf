import type { ErrorObject } from "ajv";
import { getOwn, isWellFormed } from "../core/json.js";
import { validationError, type HttpError, type ValidationIssue } from "./http-error.js";
import type { RequestProblem } from "./service-module.js";

type Where = "body" | "query" | "path" | "header";

/**
 * FastAPI's answer to a request that fails validation: one 422 listing the problems of every part,
 * path first, then query, headers and body (the order FastAPI resolves them in).
 */
export function fastApiInvalid(problems: readonly RequestProblem[]): HttpError {
  const issues: ValidationIssue[] = [];
  for (const p of problems) {
    if (p.missing) issues.push({ type: "missing", loc: ["body"], msg: "Field required", input: null });
    else issues.push(...toPydanticIssues(p.errors, p.part, p.data));
  }
  return validationError(issues);
}

/**
 * Turns ajv's errors into the entries FastAPI (pydantic v2) puts in a 422 body, with pydantic's
 * `type`, `msg` and `ctx` so that clients matching on them see what the real service sends.
 * `where` is the first element of `loc`: "body", "query" or "path".
 */
export function toPydanticIssues(errors: readonly ErrorObject[], where: Where, root: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = toIssue(error, where, root);
    if (!issue) continue;
    const key = JSON.stringify([issue.loc, issue.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/**
 * pydantic's `string_unicode` for each of `fields` (a string, or a list of strings) that holds a lone
 * UTF-16 surrogate: valid JSON (`"\ud800"`) but not text, so it cannot go into a URL, a header or a
 * form (encodeURIComponent throws on it; URLSearchParams would quietly send U+FFFD instead).
 */
export function illFormedTextIssues(body: unknown, fields: readonly string[], where: Where = "body"): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const check = (value: unknown, loc: (string | number)[]) => {
    if (typeof value === "string" && !isWellFormed(value)) {
      issues.push({ type: "string_unicode", loc, msg: "Input should be a valid string, unable to parse raw data as a unicode string", input: value });
    }
  };
  for (const field of fields) {
    const value = getOwn(body, field);
    if (Array.isArray(value)) value.forEach((item, i) => check(item, [where, field, i]));
    else check(value, [where, field]);
  }
  return issues;
}

function toIssue(e: ErrorObject, where: Where, root: unknown): ValidationIssue | undefined {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p, i, all) => (/^\d+$/.test(p) && Array.isArray(valueAt(root, all.slice(0, i))) ? Number(p) : p));
  const loc: (string | number)[] = [where, ...path];
  const input = e.data;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      // FastAPI validates query and path parameters one by one: a missing one has no input.
      return { type: "missing", loc: [...loc, String(p.missingProperty)], msg: "Field required", input: where === "body" ? input : null };
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      return { type: "extra_forbidden", loc: [...loc, key], msg: "Extra inputs are not permitted", input: (input as Record<string, unknown>)?.[key] };
    }
    case "type": {
      const types = String(p.type).split(",").filter((t) => t !== "null");
      // A null branch of a nullable union fails with type "null" next to the real branch: skip it.
      if (types.length === 0) return undefined;
      return typeIssue(types[0] as string, loc, input, e, path.length === 0 && where === "body");
    }
    case "enum": {
      const allowed = (p.allowedValues as unknown[]) ?? [];
      const expected = listOr(allowed.map((v) => (typeof v === "string" ? `'${v}'` : JSON.stringify(v))));
      return { type: "enum", loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
    }
    case "const":
      return { type: "literal_error", loc, msg: `Input should be ${repr(p.allowedValue)}`, input, ctx: { expected: repr(p.allowedValue) } };
    case "format":
      return formatIssue(String(p.format), loc, input);
    case "minimum":
      return { type: "greater_than_equal", loc, msg: `Input should be greater than or equal to ${p.limit}`, input, ctx: { ge: p.limit } };
    case "exclusiveMinimum":
      return { type: "greater_than", loc, msg: `Input should be greater than ${p.limit}`, input, ctx: { gt: p.limit } };
    case "maximum":
      return { type: "less_than_equal", loc, msg: `Input should be less than or equal to ${p.limit}`, input, ctx: { le: p.limit } };
    case "exclusiveMaximum":
      return { type: "less_than", loc, msg: `Input should be less than ${p.limit}`, input, ctx: { lt: p.limit } };
    case "minLength":
      return { type: "string_too_short", loc, msg: `String should have at least ${p.limit} character${p.limit === 1 ? "" : "s"}`, input, ctx: { min_length: p.limit } };
    case "maxLength":
      return { type: "string_too_long", loc, msg: `String should have at most ${p.limit} character${p.limit === 1 ? "" : "s"}`, input, ctx: { max_length: p.limit } };
    case "pattern":
      return { type: "string_pattern_mismatch", loc, msg: `String should match pattern '${p.pattern}'`, input, ctx: { pattern: p.pattern } };
    case "minItems": {
      const n = Array.isArray(input) ? input.length : 0;
      return { type: "too_short", loc, msg: `List should have at least ${p.limit} item${p.limit === 1 ? "" : "s"} after validation, not ${n}`, input, ctx: { field_type: "List", min_length: p.limit, actual_length: n } };
    }
    case "maxItems": {
      const n = Array.isArray(input) ? input.length : 0;
      return { type: "too_long", loc, msg: `List should have at most ${p.limit} item${p.limit === 1 ? "" : "s"} after validation, not ${n}`, input, ctx: { field_type: "List", max_length: p.limit, actual_length: n } };
    }
    // The failing branches of a union are reported on their own; the summary adds nothing.
    case "anyOf":
    case "oneOf":
    case "if":
      return undefined;
    default:
      return { type: "value_error", loc, msg: `Value error, ${e.message ?? e.keyword}`, input, ctx: { error: e.message ?? e.keyword } };
  }
}

function typeIssue(type: string, loc: (string | number)[], input: unknown, e: ErrorObject, isBodyRoot: boolean): ValidationIssue {
  const fromString = typeof input === "string";
  switch (type) {
    case "integer":
      if (typeof input === "number") return { type: "int_from_float", loc, msg: "Input should be a valid integer, got a number with a fractional part", input };
      return fromString
        ? { type: "int_parsing", loc, msg: "Input should be a valid integer, unable to parse string as an integer", input }
        : { type: "int_type", loc, msg: "Input should be a valid integer", input };
    case "number":
      return fromString
        ? { type: "float_parsing", loc, msg: "Input should be a valid number, unable to parse string as a number", input }
        : { type: "float_type", loc, msg: "Input should be a valid number", input };
    case "boolean":
      return fromString
        ? { type: "bool_parsing", loc, msg: "Input should be a valid boolean, unable to interpret input", input }
        : { type: "bool_type", loc, msg: "Input should be a valid boolean", input };
    case "string":
      return { type: "string_type", loc, msg: "Input should be a valid string", input };
    case "array":
      return { type: "list_type", loc, msg: "Input should be a valid list", input };
    case "object": {
      if (isBodyRoot) return { type: "model_attributes_type", loc, msg: "Input should be a valid dictionary or object to extract fields from", input };
      const title = (e.parentSchema as { title?: string } | undefined)?.title;
      return title
        ? { type: "model_type", loc, msg: `Input should be a valid dictionary or instance of ${title}`, input, ctx: { class_name: title } }
        : { type: "dict_type", loc, msg: "Input should be a valid dictionary", input };
    }
    default:
      return { type: `${type}_type`, loc, msg: `Input should be a valid ${type}`, input };
  }
}

function formatIssue(format: string, loc: (string | number)[], input: unknown): ValidationIssue {
  if (format === "uuid") {
    if (typeof input !== "string") return { type: "uuid_type", loc, msg: "UUID input should be a string, bytes or UUID object", input };
    const error = uuidProblem(input);
    return { type: "uuid_parsing", loc, msg: `Input should be a valid UUID, ${error}`, input, ctx: { error } };
  }
  if (format === "date-time") {
    return { type: "datetime_from_date_parsing", loc, msg: "Input should be a valid datetime or date, invalid character in year", input, ctx: { error: "invalid character in year" } };
  }
  return { type: "value_error", loc, msg: `Value error, invalid ${format}`, input, ctx: { error: `invalid ${format}` } };
}

/** The reason pydantic (via the `uuid` crate) gives for a string that is not a UUID. */
export function uuidProblem(text: string): string {
  const body = text.toLowerCase().startsWith("urn:uuid:") ? text.slice(9) : text;
  for (let i = 0; i < body.length; i++) {
    if (!/[0-9a-fA-F-]/.test(body[i] as string)) {
      return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${body[i]}\` at ${i + 1}`;
    }
  }
  const groups = body.split("-");
  if (groups.length === 1) return `invalid length: expected length 32 for simple format, found ${body.length}`;
  if (groups.length !== 5) return `invalid group count: expected 5, found ${groups.length}`;
  const expected = [8, 4, 4, 4, 12];
  for (let g = 0; g < 5; g++) {
    if ((groups[g] as string).length !== expected[g]) {
      return `invalid group length in group ${g}: expected ${expected[g]}, found ${(groups[g] as string).length}`;
    }
  }
  return "invalid format";
}

function listOr(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

function repr(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}
