import { getOwn, setOwn } from "../core/json.js";

export { contains } from "../core/contains.js";

/** The `select` of a search body: only the named fields of each result. */
export function selectFields(source: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) setOwn(out, field, getOwn(source, field));
  return out;
}
