import { exactJsonText, freezeJson, setOwn } from "../core/json.js";
import { builtValueKey, fixtureCache } from "./draft-cache.js";

/**
 * Values a seeded mock computes at start that are fixed by what they are computed from (the seed
 * included), kept for the next mock the process builds from the same inputs: a test suite or a
 * `startMockServer()` per test builds the same seeded mock over and over. A value's key is in two
 * parts that together must name every input: `inputs`, what all values of one start share (the
 * seed…, one string looked up once per start), and `key`, the value's own. A value is kept frozen
 * and every later mock shares it (records are never changed in place; frozen, a mistake would throw
 * rather than leak between mocks), so keep only what the start built itself, nothing a caller of the
 * library holds. Bounded: other inputs (other seeds) only add entries.
 *
 * Given a `diskName`, the values of one start's inputs are also kept on disk for the next process
 * (beside the fixture drafts, src/store/draft-cache.ts: the same folder, the same `off`): `save`
 * writes them after the start, and the first `get` of those inputs in a process reads them. They are
 * filed under the build (core/build-id.ts) and the generators' versions too, since the mock's own
 * code computed them: another build never reads them, and a mock running from src/ keeps none. Only
 * values that JSON carries unchanged are written.
 */
export class SeededValues<T> {
  private readonly values = new Map<string, Map<string, T>>();
  private size = 0;
  /** Inputs with values kept since they were last read from or written to disk. */
  private readonly unsaved = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly diskName?: string,
  ) {}

  get(inputs: string, key: string): T | undefined {
    return (this.values.get(inputs) ?? this.read(inputs))?.get(key);
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
    if (this.diskName) this.unsaved.add(inputs);
  }

  /** Writes the values of `inputs` to disk when this process kept new ones (a start calls it when done). */
  save(inputs: string): void {
    const kept = this.values.get(inputs);
    const file = this.fileKey(inputs);
    if (!this.unsaved.delete(inputs) || !kept || file === undefined) return;
    const out: Record<string, T> = {};
    for (const [key, value] of kept) {
      if (exactJsonText(value) !== undefined) setOwn(out, key, value);
    }
    fixtureCache().write(file, JSON.stringify(out));
  }

  /** The values of `inputs` kept on disk by an earlier process, now kept here too (or none). */
  private read(inputs: string): Map<string, T> | undefined {
    const file = this.fileKey(inputs);
    if (file === undefined) return undefined;
    const kept = new Map<string, T>();
    for (const [key, value] of Object.entries(fixtureCache().read(file) ?? {})) kept.set(key, freezeJson(value as T));
    if (this.size + kept.size >= this.max) {
      this.values.clear();
      this.size = 0;
    }
    this.values.set(inputs, kept);
    this.size += kept.size;
    return kept;
  }

  /** The disk key of `inputs`, or undefined when nothing is kept on disk (no name, no build, no folder). */
  private fileKey(inputs: string): string | undefined {
    return this.diskName ? builtValueKey("seeded-values", this.diskName, inputs) : undefined;
  }
}
