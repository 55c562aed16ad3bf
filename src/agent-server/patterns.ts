import { didYouMean } from "../core/did-you-mean.js";
import { getOwn, isPlainObject, toPointer } from "../core/json.js";

/**
 * Deep partial patterns of `match.input` and `match.metadata` (docs/scenarios.md, "Matching"):
 * an object pattern needs each of its keys, an array pattern needs its items at the same positions,
 * anything else must be equal. Operator objects (`{$contains: …}`, `{$regex: …}`, `{$exists: …}`)
 * test the value instead.
 */
const OPERATORS = new Set(["$contains", "$regex", "$exists"]);

/** Why `value` does not match `pattern` (`where` names the value, e.g. `input.messages[0].content`), or undefined. */
export function patternMismatch(pattern: unknown, value: unknown, where: string): string | undefined {
  if (isOperatorObject(pattern)) {
    for (const op of Object.keys(pattern)) {
      const reason = operatorMismatch(op, pattern[op], value, where);
      if (reason) return reason;
    }
    return undefined;
  }
  if (isPlainObject(pattern)) {
    if (!isPlainObject(value)) return value === undefined ? `${where} is missing` : `${where} is ${describe(value)}, not an object`;
    for (const key of Object.keys(pattern)) {
      const reason = patternMismatch(pattern[key], getOwn(value, key), `${where}.${key}`);
      if (reason) return reason;
    }
    return undefined;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(value)) return value === undefined ? `${where} is missing` : `${where} is ${describe(value)}, not a list`;
    if (value.length < pattern.length) return `${where} has ${value.length} item${value.length === 1 ? "" : "s"}, the pattern needs ${pattern.length}`;
    for (let i = 0; i < pattern.length; i++) {
      const reason = patternMismatch(pattern[i], value[i], `${where}[${i}]`);
      if (reason) return reason;
    }
    return undefined;
  }
  if (value === undefined) return `${where} is missing`;
  return value === pattern ? undefined : `${where} is ${describe(value)}, not ${describe(pattern)}`;
}

/** Problems of a pattern found when a scenario is loaded: unknown operators, bad regular expressions. */
export function patternProblems(pattern: unknown, path: (string | number)[]): { pointer: string; reason: string }[] {
  const out: { pointer: string; reason: string }[] = [];
  if (isPlainObject(pattern)) {
    const keys = Object.keys(pattern);
    const ops = keys.filter((k) => k.startsWith("$"));
    if (ops.length && ops.length !== keys.length) out.push({ pointer: toPointer(path), reason: `mixes operators (${ops.join(", ")}) with plain keys; put the operators on the value they test` });
    for (const op of ops) {
      const at = toPointer([...path, op]);
      const arg = pattern[op];
      if (!OPERATORS.has(op)) out.push({ pointer: at, reason: `unknown operator${didYouMean(op, OPERATORS)}; use one of ${[...OPERATORS].join(", ")}` });
      else if (op === "$exists" && typeof arg !== "boolean") out.push({ pointer: at, reason: `$exists takes true or false; got ${describe(arg)}` });
      else if (op === "$regex") {
        if (typeof arg !== "string") out.push({ pointer: at, reason: `$regex takes a string; got ${describe(arg)}` });
        else {
          try {
            compileRegex(arg);
          } catch (err) {
            out.push({ pointer: at, reason: `invalid regular expression: ${(err as Error).message}` });
          }
        }
      } else if (op === "$contains") out.push(...patternProblems(arg, [...path, op]));
    }
    for (const key of keys.filter((k) => !k.startsWith("$"))) out.push(...patternProblems(pattern[key], [...path, key]));
  } else if (Array.isArray(pattern)) {
    pattern.forEach((item, i) => out.push(...patternProblems(item, [...path, i])));
  }
  return out;
}

function operatorMismatch(op: string, arg: unknown, value: unknown, where: string): string | undefined {
  switch (op) {
    case "$exists":
      if (arg === true) return value === undefined ? `${where} is missing` : undefined;
      return value === undefined ? undefined : `${where} exists (${describe(value)})`;
    case "$regex": {
      const re = compileRegex(arg as string);
      if (typeof value !== "string") return `${where} is ${describe(value)}, not a string matching ${re}`;
      return re.test(value) ? undefined : `${where} does not match ${re}`;
    }
    case "$contains":
      if (typeof value === "string") {
        if (typeof arg !== "string") return `${where} is a string; $contains ${describe(arg)} needs a list`;
        return value.includes(arg) ? undefined : `${where} does not contain ${JSON.stringify(arg)}`;
      }
      if (Array.isArray(value)) {
        return value.some((item, i) => patternMismatch(arg, item, `${where}[${i}]`) === undefined)
          ? undefined
          : `${where} has no item matching ${JSON.stringify(arg)}`;
      }
      return value === undefined ? `${where} is missing` : `${where} is ${describe(value)}; $contains needs a string or a list`;
    default:
      return `${where}: unknown operator ${op}`;
  }
}

/** Compiled `$regex` patterns, shared by every mock of the process: bounded, as scenarios come and go. */
const regexCache = new Map<string, RegExp>();
const MAX_CACHED_REGEXES = 500;

/** `"weather"` or `"/weather/i"`. */
function compileRegex(source: string): RegExp {
  let re = regexCache.get(source);
  if (!re) {
    const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(source);
    re = literal ? new RegExp(literal[1] as string, (literal[2] as string).replace(/[gy]/g, "")) : new RegExp(source);
    if (regexCache.size >= MAX_CACHED_REGEXES) regexCache.clear();
    regexCache.set(source, re);
  }
  return re;
}

function isOperatorObject(pattern: unknown): pattern is Record<string, unknown> {
  return isPlainObject(pattern) && Object.keys(pattern).length > 0 && Object.keys(pattern).every((k) => k.startsWith("$"));
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
