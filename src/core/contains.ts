import { getOwn, isPlainObject } from "./json.js";

/**
 * Postgres `@>` containment, which the real server uses for the `metadata` and `values` filters of
 * the search routes (and the mock for fault rules' body predicates): every key of `wanted` is in
 * `actual` with a contained value; every item of a wanted list is contained in some item of the actual
 * list; scalars are equal.
 */
export function contains(actual: unknown, wanted: unknown): boolean {
  if (isPlainObject(wanted)) {
    return isPlainObject(actual) && Object.keys(wanted).every((k) => Object.hasOwn(actual, k) && contains(getOwn(actual, k), wanted[k]));
  }
  if (Array.isArray(wanted)) return Array.isArray(actual) && listContains(actual, wanted);
  return actual === wanted;
}

/**
 * A wanted scalar is looked up in a set of the actual list's scalars, not compared with each item: two
 * lists of n numbers would otherwise cost n² comparisons (seconds for a filter of 20 KB). Only
 * lists and objects can contain lists and objects, so those are compared with those alone.
 */
function listContains(actual: unknown[], wanted: unknown[]): boolean {
  let scalars: Set<unknown> | undefined;
  let nested: unknown[] | undefined;
  for (const w of wanted) {
    if (w === null || typeof w !== "object") {
      scalars ??= new Set(actual.filter((a) => a === null || typeof a !== "object"));
      if (!scalars.has(w)) return false;
    } else {
      nested ??= actual.filter((a) => a !== null && typeof a === "object");
      if (!nested.some((a) => contains(a, w))) return false;
    }
  }
  return true;
}
