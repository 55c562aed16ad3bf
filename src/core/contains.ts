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
  if (Array.isArray(wanted)) return Array.isArray(actual) && wanted.every((w) => actual.some((a) => contains(a, w)));
  return actual === wanted;
}
