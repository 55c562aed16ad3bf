import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepMerge, exactJsonText, freezeJson, omit, setOwn, toPointer } from "../../src/core/json.js";

describe("JSON helpers treat __proto__ and constructor as data", () => {
  it("deepMerge keeps a __proto__ key as an own property and pollutes nothing", () => {
    const evil = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "a": {"b": 1}}');
    const merged = deepMerge({ a: { c: 2 } }, evil) as Record<string, unknown>;
    expect(Object.hasOwn(merged, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.a).toEqual({ c: 2, b: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(merged)).toBe('{"a":{"c":2,"b":1},"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
  });

  it("setOwn defines the key instead of calling a setter", () => {
    const target: Record<string, unknown> = {};
    setOwn(target, "__proto__", { x: 1 });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(JSON.stringify(target)).toBe('{"__proto__":{"x":1}}');
  });

  it("omit copies without the named keys", () => {
    expect(omit({ a: 1, b: 2, c: 3 }, ["b"])).toEqual({ a: 1, c: 3 });
  });

  it("toPointer escapes ~ and /", () => {
    expect(toPointer(["a/b", "c~d", 0])).toBe("/a~1b/c~0d/0");
  });
});

describe("freezeJson", () => {
  it("freezes a value and everything in it", () => {
    const value = freezeJson({ a: [{ b: 1 }], c: { d: "x" } });
    expect([value, value.a, value.a[0], value.c].every((v) => Object.isFrozen(v))).toBe(true);
  });
});

describe("exactJsonText", () => {
  /** What it means: the text, when parsing it gives the value back. */
  const byDefinition = (value: unknown) => {
    const text = JSON.stringify(value);
    return text !== undefined && isDeepStrictEqual(JSON.parse(text), value) ? text : undefined;
  };
  const withExtra = <T extends object>(target: T, key: string | symbol, value: unknown, enumerable = true): T => Object.defineProperty(target, key, { value, enumerable });

  it("gives the text exactly when parsing it gives the value back, for odd values", () => {
    const values: unknown[] = [
      null, true, false, 0, -0, 1.5, 1e21, 5e-324, Number.MAX_VALUE, NaN, Infinity, -Infinity, "", "text", "\ud800 lone", "quote \" and \\",
      undefined, () => 1, Symbol("s"), [], {}, [1, "a", null], { a: 1, b: [true, { c: "d" }] },
      [undefined], [1, , 3], [() => 1], [NaN], [-0], { a: undefined }, { a: NaN }, { a: -0 }, { a: () => 1 }, { a: [1, , 2] },
      JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}'), { toJSON: () => 1 }, new Date(0), new Number(1), new String("s"), new Boolean(false),
      Object.create(null), Object.assign(Object.create(null), { a: 1 }), Object.create({ inherited: 1 }), new Map(), new Set([1]), new Uint8Array(2), /re/, new Error("e"),
      withExtra([1, 2], "extra", 1), withExtra([1, 2], "hidden", 1, false), withExtra({ a: 1 }, "hidden", undefined, false),
      withExtra({ a: 1 }, Symbol("s"), 1), withExtra({ a: 1 }, Symbol("s"), 1, false), withExtra([1], Symbol("s"), 1), withExtra({ a: 1 }, Symbol.toStringTag, "Tag", false),
      (function () { return arguments; })(), Object.defineProperty({}, "got", { get: () => 1, enumerable: true }), new (class Point { x = 1; })(),
      { deep: [{ deeper: [{ deepest: [-0] }] }] }, { deep: [{ deeper: [{ deepest: [0] }] }] },
    ];
    for (const value of values) expect(exactJsonText(value), String(JSON.stringify(value) ?? typeof value)).toBe(byDefinition(value));
  });

  it("agrees with its definition on generated values, JSON or nearly", () => {
    const nearlyJson = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, NaN, -0, Infinity), fc.double(), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 }), fc.sparseArray(fc.integer(), { maxLength: 4 })),
    })).value;
    fc.assert(fc.property(nearlyJson, (value) => exactJsonText(value) === byDefinition(value)), { numRuns: 2000 });
  });
});
