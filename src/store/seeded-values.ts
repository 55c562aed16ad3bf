import { copyJson, freezeJson } from "../core/json.js";

/**
 * Values a seeded mock computes at start that are fixed by what they are computed from (the seed
 * included), kept for the next mock the process builds from the same inputs: a test suite or a
 * `startMockServer()` per test builds the same seeded mock over and over. The caller's key must name
 * every input. A value is kept as a frozen copy that every later mock shares (records are never
 * changed in place; frozen, a mistake would throw rather than leak between mocks), and the one
 * passed in is left as it was. Bounded: other inputs (other seeds) only add entries.
 */
export class SeededValues<T> {
  private readonly values = new Map<string, T>();

  constructor(private readonly max: number) {}

  get(key: string): T | undefined {
    return this.values.get(key);
  }

  /** Keeps a frozen copy of `value` under `key` and returns it. */
  keep(key: string, value: T): T {
    if (this.values.size >= this.max) this.values.clear();
    const kept = freezeJson(copyJson(value));
    this.values.set(key, kept);
    return kept;
  }
}
