import { formatTimestamp } from "../core/clock.js";
import { closest } from "../core/did-you-mean.js";
import { getOwn, isPlainObject, setOwn, toPointer } from "../core/json.js";
import { uuid5, uuidBytes, type Random } from "../core/random.js";
import { callFaker, fakerCallProblem } from "./faker-calls.js";

/**
 * Scenario templates: `{{expression}}` inside string values (docs/scenarios.md, "Templates").
 * A string that is exactly one template takes the expression's value with its JSON type; a template
 * inside a longer string is replaced by its text (objects as compact JSON).
 */
const TEMPLATE = /\{\{\s*(.*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*(.*?)\s*\}\}$/;
const SCALARS = new Set(["run_id", "thread_id", "assistant_id", "graph_id", "scenario", "turn", "now", "uuid"]);
const REQUEST_ROOTS = new Set(["input", "metadata", "config", "context", "command", "state"]);
const INDEX = /^-?\d+$/;
const FAKER = /^faker\.([a-z][A-Za-z]*)\.([a-z][A-Za-z]*)$/;
const NAMED_ID = /^id\.[A-Za-z0-9_-]+$/;

/** What templates of one run can read. */
export interface TemplateScope {
  run_id: string;
  thread_id: string | null;
  assistant_id: string;
  graph_id: string;
  scenario: string;
  /** 1-based number of the turn being played. */
  turn: number;
  now: number;
  request: Record<string, unknown>;
  /**
   * The state the templated part reads: for a step of `steps`, the run's start state with the steps
   * before it reduced in (what its node sees); for events, endings and store writes, the state once
   * the run's input is applied (what its first node sees).
   */
  state: Record<string, unknown> | null;
  random: Random;
}

/** A template that has no value in this run; `pointer` is where it sits in the scenario. */
export class TemplateError extends Error {
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(reason);
  }
}

/** Problems with the templates found in `value` (unknown expressions, faker methods that do not exist). */
export function templateProblems(value: unknown, path: (string | number)[] = []): { pointer: string; reason: string }[] {
  const out: { pointer: string; reason: string }[] = [];
  walkStrings(value, path, (text, at) => {
    for (const match of text.matchAll(TEMPLATE)) {
      const reason = expressionProblem(match[1] as string);
      if (reason) out.push({ pointer: toPointer(at), reason: `template {{${match[1]}}}: ${reason}` });
    }
  });
  return out;
}

/** `value` with every template filled from the scope: a new value where it holds templates, else `value` itself. Throws TemplateError. */
export function renderTemplates(value: unknown, scope: TemplateScope, path: (string | number)[] = []): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole && !(whole[1] as string).includes("}}")) return evaluate(whole[1] as string, scope, path);
    return value.includes("{{") ? renderText(value, scope, path) : value;
  }
  // Scenario turns are frozen when loaded (scenario-validation.ts): a part without templates is the same in every run, and shared.
  if ((Array.isArray(value) || isPlainObject(value)) && holdsNoTemplate(value)) return value;
  if (Array.isArray(value)) return value.map((item, i) => renderTemplates(item, scope, [...path, i]));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // Keys may be templated too: real payloads key data by ids (`messages/metadata` by message id).
      const name = key.includes("{{") ? renderText(key, scope, [...path, key]) : key;
      setOwn(out, name, renderTemplates(value[key], scope, [...path, key]));
    }
    return out;
  }
  return value;
}

/**
 * Objects and arrays of scenarios known to hold no template, in a key or in a string anywhere inside
 * them. Scenarios are checked when loaded and not changed after, so each part is looked through once;
 * a run then copies such a part without tracking where it is (the path only names a failing template).
 */
const templateFree = new WeakMap<object, boolean>();

function holdsNoTemplate(value: unknown[] | Record<string, unknown>): boolean {
  let free = templateFree.get(value);
  if (free === undefined) {
    free = Array.isArray(value) ? value.every(noTemplateIn) : Object.keys(value).every((key) => !key.includes("{{") && noTemplateIn(value[key]));
    templateFree.set(value, free);
  }
  return free;
}

/** Whether a scenario part holds no template anywhere: every run renders it to a copy of itself. */
function noTemplateIn(value: unknown): boolean {
  if (typeof value === "string") return !value.includes("{{");
  return Array.isArray(value) || isPlainObject(value) ? holdsNoTemplate(value) : true;
}

/** Text with templates (inside a longer string, or an object key): each replaced by its value's text, compact JSON for a non-string. */
function renderText(text: string, scope: TemplateScope, path: (string | number)[]): string {
  return text.replace(TEMPLATE, (_m, expr: string) => {
    const result = evaluate(expr, scope, path);
    return typeof result === "string" ? result : JSON.stringify(result);
  });
}

function evaluate(expr: string, scope: TemplateScope, path: (string | number)[]): unknown {
  const fail = (reason: string): never => {
    throw new TemplateError(toPointer(path), `template {{${expr}}} at ${toPointer(path) || "/"} ${reason}`);
  };
  switch (expr) {
    case "run_id":
    case "assistant_id":
    case "graph_id":
    case "scenario":
    case "turn":
      return scope[expr];
    case "thread_id":
      return scope.thread_id ?? fail("has no value: the run has no thread");
    case "now":
      return formatTimestamp(scope.now);
    case "uuid":
      return scope.random.uuid4();
  }
  // A uuid named by the scenario, the same in every turn of the thread (messages keep their ids).
  if (NAMED_ID.test(expr)) return uuid5(expr, uuidBytes(scope.thread_id ?? scope.run_id));
  const fakerCall = FAKER.exec(expr);
  if (fakerCall) {
    try {
      return callFaker(scope.random.faker, fakerCall[1] as string, fakerCall[2] as string, scope.now);
    } catch (err) {
      return fail(`failed: ${(err as Error).message}`);
    }
  }
  const [root, ...keys] = expr.split(".");
  const top = root === "state" ? (scope.state ?? {}) : getOwn(scope.request, root as string);
  let node: unknown = top;
  for (const key of keys) {
    // A list item by index; a negative one counts from the end (`-1` is the last).
    node = Array.isArray(node) && INDEX.test(key) ? node.at(Number(key)) : getOwn(node, key);
    if (node === undefined) break;
  }
  if (node !== undefined) return node;
  return fail(root === "state" ? `has no value in the thread's state (${JSON.stringify(top)})` : `has no value in this run's request (${root} is ${JSON.stringify(top) ?? "absent"})`);
}

function expressionProblem(expr: string): string | undefined {
  if (SCALARS.has(expr) || NAMED_ID.test(expr)) return undefined;
  const fakerCall = FAKER.exec(expr);
  if (fakerCall) return fakerCallProblem(fakerCall[1] as string, fakerCall[2] as string);
  const [root, ...keys] = expr.split(".");
  if (REQUEST_ROOTS.has(root as string) && keys.every((k) => k !== "" && !/\s/.test(k))) return undefined;
  return `unknown expression${expressionHint(root as string, keys)}; use one of ${[...SCALARS].join(", ")}, id.<name>, input.<path>, metadata.<path>, config.<path>, context.<path>, command.<path>, state.<path>, faker.<module>.<method>`;
}

/** ` (did you mean {{…}}?)` for a misspelt scalar or request root, or "". */
function expressionHint(root: string, keys: string[]): string {
  if (keys.length === 0) {
    const scalar = closest(root, SCALARS);
    if (scalar) return ` (did you mean {{${scalar}}}?)`;
  }
  const requestRoot = closest(root, [...REQUEST_ROOTS, "faker", "id"]);
  return requestRoot && keys.length ? ` (did you mean {{${[requestRoot, ...keys].join(".")}}}?)` : "";
}

function walkStrings(value: unknown, path: (string | number)[], visit: (text: string, path: (string | number)[]) => void): void {
  if (typeof value === "string") visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => walkStrings(item, [...path, i], visit));
  else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (key.includes("{{")) visit(key, [...path, key]);
      walkStrings(value[key], [...path, key], visit);
    }
  }
}
