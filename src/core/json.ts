/**
 * JSON helpers that treat every key — `__proto__` and `constructor` included — as data.
 * JSON.parse already creates such keys as own properties; the danger is code that later copies them
 * with assignment (`target[key] = …`, Object.assign), which would set a prototype instead. Everything
 * in the mock that copies or merges client-supplied objects goes through these helpers.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Defines `key` as an own, enumerable data property, whatever its name. `__proto__` is the one name
 * an assignment would not define (Object.prototype's only accessor); every other name is assigned,
 * which is several times cheaper than defineProperty and copies of scenario data run per event.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * A deep copy of a JSON value (what JSON.parse or a form parser gave): objects, arrays and primitives.
 * Several times faster than structuredClone for request-sized bodies; a `__proto__` key stays data.
 */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, copyJson((value as Record<string, unknown>)[key]));
  return out as T;
}

/** Freezes a JSON value and everything in it, so that values shared between mocks cannot be changed. */
export function freezeJson<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) freezeJson((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}

export function getOwn(source: unknown, key: string): unknown {
  return isPlainObject(source) && Object.hasOwn(source, key) ? source[key] : undefined;
}

/**
 * Deep merge for fixture and scenario data: objects merge key by key, anything else (arrays included)
 * is replaced. Returns a new object; neither input is changed.
 */
export function deepMerge<T>(base: T, override: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(override)) return (override === undefined ? base : override) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(base)) setOwn(out, key, base[key]);
  for (const key of Object.keys(override)) {
    const value = override[key];
    setOwn(out, key, Object.hasOwn(out, key) ? deepMerge(out[key], value) : value);
  }
  return out as T;
}

/** A shallow copy with some keys left out (used to drop fixture-only keys and secrets). */
export function omit<T extends Record<string, unknown>>(source: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) if (!keys.includes(key)) setOwn(out, key, source[key]);
  return out as T;
}

/** JSON pointer (RFC 6901) for a path of keys and indexes. */
export function toPointer(path: readonly (string | number)[]): string {
  return path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** Whether the string holds no lone UTF-16 surrogate (String#isWellFormed, which the ES2023 lib does not type). */
export function isWellFormed(text: string): boolean {
  return !/\p{Cs}/u.test(text);
}

/**
 * The string with lone UTF-16 surrogates (valid in JSON text, `"\ud800"`, but not Unicode) replaced
 * by U+FFFD, so that encodeURIComponent and UTF-8 encoders cannot throw on client data.
 */
export function wellFormed(text: string): string {
  return text.replace(/\p{Cs}/gu, "\uFFFD");
}
