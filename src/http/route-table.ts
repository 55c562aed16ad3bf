import { perProcess } from "../core/memo.js";

/**
 * Every route the mock serves, by method and path pattern. Express answers an unmatched request the
 * same way whatever the reason; the table lets the fallback tell "no such path" (404) from "path
 * exists, wrong method" (405 with an Allow header), as the real services do.
 */
export class RouteTable {
  private readonly routes: { method: string; path: string; pattern: RegExp }[] = [];

  add(method: string, path: string): void {
    this.routes.push({ method: method.toUpperCase(), path, pattern: patternFor(path) });
  }

  /** Every registered route as `{method, path}` (express syntax, e.g. `/threads/:thread_id`). */
  list(): { method: string; path: string }[] {
    return this.routes.map(({ method, path }) => ({ method, path }));
  }

  /** Methods allowed on a path, or an empty list when no route has that path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) methods.add(route.method);
    return [...methods];
  }

}

/** Patterns by path, shared by every mock of the process: each start declares the same few hundred routes. */
const patternFor = perProcess(compile);

function compile(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}
