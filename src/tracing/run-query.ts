import { isUuid } from "../core/random.js";
import type { TraceRunQuery } from "../schemas/types.gen.js";
import { tracingErrors } from "./errors.js";
import { runStatus } from "./trace-views.js";
import type { StoredTraceRun, TraceStore } from "./trace-store.js";

type Predicate = (r: StoredTraceRun) => boolean;
type Value = string | number | boolean | null;

/** The run fields `filter` may compare, as the stored run holds them. */
const FIELDS: Record<string, (r: StoredTraceRun) => Value | string[]> = {
  id: (r) => r.id,
  name: (r) => r.name,
  run_type: (r) => r.run_type,
  status: (r) => runStatus(r),
  error: (r) => r.error,
  trace_id: (r) => r.trace_id,
  parent_run_id: (r) => r.parent_run_id,
  session_id: (r) => r.session_id,
  is_root: (r) => r.parent_run_id === null,
  tags: (r) => r.tags ?? [],
};

/**
 * LangSmith's run filter language, the part a test needs: `eq`, `neq`, `has`, `and`, `or`, `not` over
 * the fields above (`eq(name, "search")`, `and(eq(run_type, "tool"), neq(error, null))`). Anything else
 * is a 400 naming what was not understood.
 */
export function parseRunFilter(text: string): Predicate {
  let at = 0;
  const fail = (why: string): never => {
    throw tracingErrors.badFilter(`${why} at position ${at} of ${JSON.stringify(text)}; the mock reads eq, neq, has, and, or, not over ${Object.keys(FIELDS).join(", ")}`);
  };
  const skip = () => {
    while (at < text.length && /\s/.test(text[at] as string)) at++;
  };
  const expect = (ch: string) => {
    skip();
    if (text[at] !== ch) fail(`expected '${ch}'`);
    at++;
  };
  const word = (): string => {
    skip();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at));
    if (!m) return fail("expected a name");
    at += m[0].length;
    return m[0];
  };
  const value = (): Value => {
    skip();
    const quote = text[at];
    if (quote === '"' || quote === "'") {
      const end = text.indexOf(quote, at + 1);
      if (end < 0) fail("unterminated text");
      const v = text.slice(at + 1, end);
      at = end + 1;
      return v;
    }
    const m = /^-?\d+(\.\d+)?/.exec(text.slice(at));
    if (m) {
      at += m[0].length;
      return Number(m[0]);
    }
    const w = word();
    if (w === "null") return null;
    if (w === "true" || w === "false") return w === "true";
    return fail(`unexpected ${JSON.stringify(w)}`);
  };
  const field = (): ((r: StoredTraceRun) => Value | string[]) => {
    const name = word();
    return FIELDS[name] ?? fail(`unknown field ${JSON.stringify(name)}`);
  };
  const expr = (): Predicate => {
    const op = word();
    expect("(");
    let p: Predicate;
    if (op === "and" || op === "or") {
      const parts = [expr()];
      for (skip(); text[at] === ","; skip()) {
        at++;
        parts.push(expr());
      }
      p = op === "and" ? (r) => parts.every((q) => q(r)) : (r) => parts.some((q) => q(r));
    } else if (op === "not") {
      const inner = expr();
      p = (r) => !inner(r);
    } else if (op === "eq" || op === "neq" || op === "has") {
      const get = field();
      expect(",");
      const given = value();
      // Stored ids are lowercase; a filter may write them in either case.
      const want = isUuid(given) ? given.toLowerCase() : given;
      const same = (v: Value | string[]) => (Array.isArray(v) ? v.includes(String(want)) : v === want);
      p = op === "neq" ? (r) => !same(get(r)) : (r) => same(get(r));
    } else return fail(`unknown operator ${JSON.stringify(op)}`);
    expect(")");
    return p;
  };
  const p = expr();
  skip();
  if (at < text.length) fail("unexpected text");
  return p;
}

/**
 * `POST /runs/query`: the runs that match every given filter, newest start first (`order: "asc"` turns
 * it round), `limit` at a time (100 by default) with an opaque cursor to the next page.
 */
export function queryRuns(store: TraceStore, q: TraceRunQuery): { runs: StoredTraceRun[]; next: string | null } {
  const checks: Predicate[] = [];
  if (q.id?.length) {
    const ids = new Set(q.id.map((id) => id.toLowerCase()));
    checks.push((r) => ids.has(r.id));
  }
  if (q.session?.length) {
    const sessions = new Set(q.session.map((id) => id.toLowerCase()));
    checks.push((r) => sessions.has(r.session_id));
  }
  if (q.run_type != null) checks.push((r) => r.run_type === q.run_type);
  if (q.trace != null) {
    const trace = q.trace.toLowerCase();
    checks.push((r) => r.trace_id === trace);
  }
  if (q.parent_run != null) {
    const parent = q.parent_run.toLowerCase();
    checks.push((r) => r.parent_run_id === parent);
  }
  if (q.is_root != null) checks.push((r) => (r.parent_run_id === null) === q.is_root);
  if (q.execution_order === 1) checks.push((r) => r.parent_run_id === null);
  if (q.error != null) checks.push((r) => (r.error !== null) === q.error);
  if (q.start_time != null) {
    const from = Date.parse(q.start_time);
    if (!Number.isNaN(from)) checks.push((r) => r.start_time >= from);
  }
  if (q.filter) checks.push(parseRunFilter(q.filter));
  if (q.trace_filter) {
    const onRoot = parseRunFilter(q.trace_filter);
    checks.push((r) => {
      const root = r.parent_run_id === null ? r : store.get(r.trace_id);
      return root !== undefined && onRoot(root);
    });
  }
  if (q.tree_filter) {
    const onTree = parseRunFilter(q.tree_filter);
    const trees = new Set<string>();
    for (const r of store.values()) if (onTree(r)) trees.add(r.trace_id);
    checks.push((r) => trees.has(r.trace_id));
  }
  const found: StoredTraceRun[] = [];
  for (const r of store.values()) if (checks.every((c) => c(r))) found.push(r);
  const sign = q.order === "asc" ? 1 : -1;
  found.sort((a, b) => sign * (a.start_time - b.start_time || (a.dotted_order < b.dotted_order ? -1 : a.dotted_order > b.dotted_order ? 1 : 0)));
  const offset = q.cursor ? Number.parseInt(q.cursor, 10) || 0 : 0;
  const limit = q.limit ?? 100;
  const page = found.slice(offset, offset + limit);
  return { runs: page, next: offset + limit < found.length ? String(offset + limit) : null };
}
