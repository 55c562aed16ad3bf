import type { Random } from "../core/random.js";

/** One value of a kind (a faker call, or a pick from a pool of its values). */
export type Draw = () => unknown;

// Enough distinct values for a page of records to look varied; each one is a faker call (templates cost
// tens of microseconds), so a bigger pool only adds start-up time.
const POOL_SIZE = 64;

/**
 * The pooled value source of bulk generation: each kind of faker value (a schema property's
 * annotation, say) gets a pool of values, drawn from faker once, the first time it is needed; every
 * record then picks from the pool with the seeded generator. Faker is called about a thousand
 * times instead of ~15 times a record, and records share the pooled values (memory). Same seed, same pools,
 * same picks. Kinds with the same key share a pool.
 */
export class ValuePools {
  private readonly picks = new Map<string, Draw>();

  constructor(private readonly random: Random) {}

  /** A pick from `key`'s pool of POOL_SIZE values (filled on the first pick). */
  pool(key: string, draw: Draw): Draw {
    let pick = this.picks.get(key);
    if (!pick) {
      const random = this.random;
      let pool: readonly unknown[] | undefined;
      pick = () => {
        pool ??= this.values(POOL_SIZE, draw);
        return pool[Math.floor(random.next() * POOL_SIZE)];
      };
      this.picks.set(key, pick);
    }
    return pick;
  }

  /** `count` values of a kind, drawn now. */
  values(count: number, draw: Draw): readonly unknown[] {
    return Array.from({ length: count }, () => draw());
  }
}
