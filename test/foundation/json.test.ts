import { describe, expect, it } from "vitest";
import { deepMerge, freezeJson, omit, setOwn, toPointer } from "../../src/core/json.js";

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
