import { describe, expect, it } from "vitest";
import { deepMerge, freezeJson, jsonText, omit, setOwn, toPointer } from "../../src/core/json.js";

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

describe("jsonText keys plain JSON data only", () => {
  it("gives the JSON text of what a parser gives, __proto__ keys included", () => {
    const parsed = JSON.parse('{"a":[1,"x",null,true,{"b":-1.5}],"__proto__":{"c":0}}');
    expect(jsonText(parsed)).toBe(JSON.stringify(parsed));
    expect(jsonText(Object.assign(Object.create(null), { a: 1 }))).toBe('{"a":1}');
  });

  it("refuses values whose text would stand for another value", () => {
    const getter = Object.defineProperty({}, "a", { get: () => 1, enumerable: true });
    const hidden = Object.defineProperty({}, "a", { value: 1, enumerable: false });
    for (const value of [{ a: undefined }, { a: NaN }, { a: Infinity }, { a: -0 }, { a: new Date(0) }, [1, , 3], getter, hidden, { [Symbol("s")]: 1 }, new Map(), () => 1]) {
      expect(jsonText(value), String(value)).toBeUndefined();
    }
  });
});

describe("freezeJson", () => {
  it("freezes a value and everything in it", () => {
    const value = freezeJson({ a: [{ b: 1 }], c: { d: "x" } });
    expect([value, value.a, value.a[0], value.c].every((v) => Object.isFrozen(v))).toBe(true);
  });
});
