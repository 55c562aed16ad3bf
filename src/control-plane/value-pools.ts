import type { Random } from "../core/random.js";
import { SeededValues } from "../store/seeded-values.js";

/** One value of a kind (a faker call, or a pick from a pool of its values). */
export type Draw = () => unknown;

const POOL_SIZE = 256;

/** What a generator's faker calls gave, pool by pool in the order they were filled. */
interface Drawn {
  pools: { key: string; values: unknown[] }[];
}

/**
 * Pools kept per seed: in the process and, for the next process, on disk (src/store/seeded-values.ts,
 * filed under the build and faker's version). Filling them is faker's part of a bulk generation:
 * loading faker and a few thousand calls of code run only then, ~0.1 s of a 100,000 load.
 */
const kept = new SeededValues<Drawn>(200, "value-pools");

/**
 * The pooled value source of bulk generation: each kind of faker value (a schema property's
 * annotation, say) gets a pool of values, drawn from faker once, the first time it is needed; every
 * record then picks from the pool with the seeded generator. Faker is called a few thousand times
 * instead of ~15 times a record, and records share the pooled values (memory). Same seed, same pools,
 * same picks. Kinds with the same key share a pool.
 *
 * A seeded generator's pools are kept (`save`) and the next generator of the same seed takes them
 * instead of calling faker, pool by pool while it fills them in the same order (which pools a set
 * needs, and when, is fixed by the seed but for the fixtures' repositories). When it needs another
 * pool, or the same ones in another order, faker is first brought to where it would be — every pool
 * taken so far drawn again — so the values are always faker's.
 */
export class ValuePools {
  private readonly picks = new Map<string, Draw>();
  /** The pools filled so far, in order, with how each was drawn. */
  private readonly filled: { key: string; values: unknown[]; draw: Draw }[] = [];
  /** What an earlier generator of this seed drew, if anything was kept. */
  private readonly earlier: Drawn | undefined;
  /** Whether every pool so far was taken from `earlier` (faker has drawn none of them). */
  private taking = true;
  private drewNew = false;

  constructor(private readonly random: Random) {
    this.earlier = random.seedKey === undefined ? undefined : kept.get(random.seedKey, KEPT_KEY);
  }

  /** A pick from `key`'s pool of POOL_SIZE values (filled on the first pick). */
  pool(key: string, draw: Draw): Draw {
    let pick = this.picks.get(key);
    if (!pick) {
      const random = this.random;
      let pool: readonly unknown[] | undefined;
      pick = () => {
        pool ??= this.fill(key, POOL_SIZE, draw);
        return pool[Math.floor(random.next() * POOL_SIZE)];
      };
      this.picks.set(key, pick);
    }
    return pick;
  }

  /** `count` values of a kind, drawn now: a pool of their own, filled at once. */
  values(key: string, count: number, draw: Draw): readonly unknown[] {
    return this.fill(key, count, draw);
  }

  /** Keeps the pools for the next generator of this seed, when faker drew any of them. */
  save(): void {
    const seedKey = this.random.seedKey;
    if (!this.drewNew || seedKey === undefined) return;
    kept.keep(seedKey, KEPT_KEY, { pools: this.filled.map(({ key, values }) => ({ key, values })) });
    kept.save(seedKey);
  }

  private fill(key: string, count: number, draw: Draw): readonly unknown[] {
    const earlier = this.taking ? this.earlier?.pools[this.filled.length] : undefined;
    let values: unknown[];
    if (earlier && earlier.key === key && earlier.values.length === count) {
      values = earlier.values;
    } else {
      // Faker draws from here on: first every pool taken so far again, to where filling them left it.
      if (this.taking) for (const pool of this.filled) for (let i = 0; i < pool.values.length; i++) pool.draw();
      this.taking = false;
      values = Array.from({ length: count }, () => draw());
      this.drewNew = true;
    }
    this.filled.push({ key, values, draw });
    return values;
  }
}
const KEPT_KEY = "pools";
