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
