import { perProcess } from "../core/memo.js";
import { detailError } from "./http-error.js";

/** A route found for a request: what was registered and the decoded path parameters. */
export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

/** A path segment's literal text in lowercase, or the name of the parameter it binds. */
type Segment = { literal: string } | { param: string };

interface Entry<T> {
  /** Registration order: the first registered route that matches wins, as in express. */
  order: number;
  method: string;
  /** OpenAPI form: `/threads/{thread_id}`. */
  path: string;
  segments: readonly Segment[];
  value: T;
}

/**
 * Finds the declared route of a request by method and path, with express 5's matching rules (which the
 * mock has always served by): the first registered route that matches wins, literal segments compare
 * case-insensitively, one trailing slash is allowed, a parameter is one non-empty segment, decoded
 * with `decodeURIComponent` (a malformed escape is 400 `Failed to decode param '…'`). HEAD requests
 * are answered by GET routes.
 *
 * It is also the mock's one list of routes: it tells "no such path" (404) from "path exists, other
 * method" (405 with the methods for Allow), as the real services do, and lists what is served.
 * OPTIONS entries are CORS preflights: neither listed nor allowed.
 *
 * Express tries every registered route in turn, ~300 of them here; this looks at the few whose method,
 * segment count and first segment fit.
 */
export class RouteMatcher<T> {
  /** method → segment count → first segment (lowercase, or WILDCARD for a parameter) → routes in order. */
  private readonly buckets = new Map<string, Map<number, Map<string, Entry<T>[]>>>();
  /** Every entry in registration order. */
  private readonly all: Entry<T>[] = [];

  /** `path` in OpenAPI form: `/threads/{thread_id}/runs`. */
  add(method: string, path: string, value: T): void {
    const segments = segmentsOf(path);
    const first = segments[0];
    const key = first === undefined ? "" : "param" in first ? WILDCARD : first.literal;
    const m = method.toUpperCase();
    let byLength = this.buckets.get(m);
    if (!byLength) this.buckets.set(m, (byLength = new Map()));
    let byFirst = byLength.get(segments.length);
    if (!byFirst) byLength.set(segments.length, (byFirst = new Map()));
    let bucket = byFirst.get(key);
    if (!bucket) byFirst.set(key, (bucket = []));
    const entry = { order: this.all.length, method: m, path, segments, value };
    bucket.push(entry);
    this.all.push(entry);
  }

  /** What was registered, in order (preflights included). */
  values(): T[] {
    return this.all.map((e) => e.value);
  }

  /** Every served route as `{method, path}` in express syntax (`/threads/:thread_id`), HEAD after each GET. */
  list(): { method: string; path: string }[] {
    return this.all.filter((e) => e.method !== "OPTIONS").flatMap((e) => {
      const path = expressPath(e.path);
      return e.method === "GET" ? [{ method: "GET", path }, { method: "HEAD", path }] : [{ method: e.method, path }];
    });
  }

  /** The methods served on a request path (HEAD with GET), in registration order; empty when no route has that path. */
  allowedMethods(path: string): string[] {
    const parts = split(path);
    const methods = new Set<string>();
    for (const entry of this.all) {
      if (entry.method === "OPTIONS" || entry.segments.length !== parts.length || !fits(entry, parts)) continue;
      methods.add(entry.method);
      if (entry.method === "GET") methods.add("HEAD");
    }
    return [...methods];
  }

  /** The route for a request path (as sent, without the query), or undefined. */
  match(method: string, path: string): RouteMatch<T> | undefined {
    const m = method === "HEAD" ? "GET" : method;
    const parts = split(path);
    const byFirst = this.buckets.get(m)?.get(parts.length);
    if (!byFirst) return undefined;
    const first = parts.length ? (parts[0] as string) : "";
    const literal = byFirst.get(first) ?? byFirst.get(first.toLowerCase());
    const wild = parts.length ? byFirst.get(WILDCARD) : undefined;
    const best = firstFit(wild, parts, firstFit(literal, parts, undefined));
    if (!best) return undefined;
    const params: Record<string, string> = {};
    best.segments.forEach((segment, i) => {
      if ("param" in segment) params[segment.param] = decodeParam(parts[i] as string);
    });
    return { value: best.value, params };
  }
}

const WILDCARD = "{}";

/** `/threads/{thread_id}` → `/threads/:thread_id` (express 5 path syntax); once per path and process. */
export const expressPath = perProcess((path: string): string => path.replace(/\{([^}]+)\}/g, ":$1"));

/** Segments by declared path, shared by every mock of the process: each start declares the same few hundred routes. */
const segmentsOf = perProcess((path: string): readonly Segment[] =>
  split(path).map((s) => (/^\{[^}]+\}$/.test(s) ? { param: s.slice(1, -1) } : { literal: s.toLowerCase() })),
);

/** `/a/b/` → `["a", "b"]`: one trailing slash is allowed (express's non-strict routing). */
function split(path: string): string[] {
  const parts = path.split("/");
  parts.shift();
  if (parts.length && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** The first route of a bucket that fits, if registered before `best` (else `best`). */
function firstFit<T>(bucket: Entry<T>[] | undefined, parts: string[], best: Entry<T> | undefined): Entry<T> | undefined {
  if (!bucket) return best;
  for (const entry of bucket) {
    if (best && best.order < entry.order) return best;
    if (fits(entry, parts)) return entry;
  }
  return best;
}

function fits<T>(entry: Entry<T>, parts: string[]): boolean {
  for (let i = 0; i < parts.length; i++) {
    const segment = entry.segments[i];
    const part = parts[i] as string;
    if (segment === undefined) return false;
    if ("literal" in segment) {
      if (segment.literal !== part && segment.literal !== part.toLowerCase()) return false;
    } else if (part === "") return false;
  }
  return true;
}

/** A path parameter as express decodes it; a malformed escape is the client's error (400), as there. */
function decodeParam(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw detailError(400, `Failed to decode param '${value}'`);
  }
}
