import { getOwn } from "../core/json.js";

/**
 * `POST /threads/search`'s `extract`: `{alias: path}` read from each thread's wire form into
 * `extracted` (the server's OpenAPI: a path starts at `values`, `metadata`, `config` or
 * `interrupts`, dots for keys, `[n]` for list items, `[-1]` from the end). The schema has
 * checked the paths' form. A path that leads nowhere gives null, as Postgres' `#>` does.
 */
export function extracted(thread: Record<string, unknown>, extract: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extract).map(([alias, path]) => [alias, valueAt(thread, path)]));
}

function valueAt(root: unknown, path: string): unknown {
  let at: unknown = root;
  for (const [, key, index] of path.matchAll(/\.?([^.[\]]+)|\[(-?\d+)\]/g)) {
    if (index !== undefined) {
      if (!Array.isArray(at)) return null;
      const i = Number(index);
      at = at[i < 0 ? at.length + i : i];
    } else {
      at = getOwn(at, key as string);
    }
    if (at === undefined) return null;
  }
  return at;
}
