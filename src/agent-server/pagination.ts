import { getOwn } from "../core/json.js";
import { reply, type Reply } from "../http/route.js";

/**
 * The page of a search and its `X-Pagination-*` headers, as the real server sends them
 * (docs/decisions/conformance-js-vs-python.md §20): while more results follow, `X-Pagination-Next`
 * is the next offset and `X-Pagination-Total` is that plus one (the server only knows one more
 * exists); on the last page `X-Pagination-Total` is the offset plus the page's length.
 */
export function paginate<T>(all: readonly T[], offset: number, limit: number): { page: T[]; headers: Record<string, string> } {
  const page = all.slice(offset, offset + limit);
  const next = offset + limit;
  const headers: Record<string, string> =
    all.length > next ? { "X-Pagination-Total": String(next + 1), "X-Pagination-Next": String(next) } : { "X-Pagination-Total": String(offset + page.length) };
  return { page, headers };
}

/**
 * Sorts a list that is in creation order by `value` (`asc` or `desc`; null sorts as larger than every
 * value, as in Postgres); equal values keep creation order in the same direction. The real servers' timestamps are distinct, so "newest first" there
 * is reverse creation order; on the mock's standing clock every record of a test has the same
 * `created_at`, and a tie broken by id would shuffle them.
 */
export function sortInCreationOrder<T>(list: T[], value: (item: T) => string | number | null, order: "asc" | "desc"): T[] {
  const sign = order === "asc" ? 1 : -1;
  if (sign < 0) list.reverse();
  return list.sort((a, b) => {
    const x = value(a);
    const y = value(b);
    return sign * (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1);
  });
}

/** A search route's answer: `found` sorted in creation order by `value`, one page of wire forms, cut to the `select`ed fields. */
export function searchPage<T>(found: T[], value: (item: T) => string | number | null, toWire: (item: T) => Record<string, unknown>, search: { sort_order: "asc" | "desc"; offset: number; limit: number; select?: string[] | null }): Reply {
  const { page, headers } = paginate(sortInCreationOrder(found, value, search.sort_order).map(toWire), search.offset, search.limit);
  return reply(200, search.select ? page.map((item) => selectFields(item, search.select as string[])) : page, headers);
}

/** A wire form cut to the fields a `select` names, in the order named. */
export function selectFields(item: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, getOwn(item, f)]));
}
