import { freezeJson } from "../core/json.js";

/**
 * Values a seeded mock computes at start that are fixed by what they are computed from (the seed
 * included), kept for the next mock the process builds from the same inputs: a test suite or a
 * `startMockServer()` per test builds the same seeded mock over and over. A value's key is in two
 * parts that together must name every input: `inputs`, what all values of one start share (the
 * seed…, one string looked up once per start), and `key`, the value's own. A value is kept frozen
 * and every later mock shares it (records are never changed in place; frozen, a mistake would throw
 * rather than leak between mocks), so keep only what the start built itself, nothing a caller of the
 * library holds. Bounded: other inputs (other seeds) only add entries.
 */
export class SeededValues<T> {
  private readonly values = new Map<string, Map<string, T>>();
  private size = 0;

  constructor(private readonly max: number) {}

  get(inputs: string, key: string): T | undefined {
    return this.values.get(inputs)?.get(key);
  }

  /** Keeps `value`, frozen with everything in it. */
  keep(inputs: string, key: string, value: T): void {
    if (this.size >= this.max) {
      this.values.clear();
      this.size = 0;
    }
    let kept = this.values.get(inputs);
    if (!kept) this.values.set(inputs, (kept = new Map()));
    if (!kept.has(key)) this.size++;
    kept.set(key, freezeJson(value));
  }
}
