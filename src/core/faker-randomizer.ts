import type { Randomizer } from "@faker-js/faker";

const N = 624;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;
const MATRIX = 0x9908b0df;

/**
 * faker's default generator — MT19937 drawing 53-bit floats, what `new Faker()` builds and
 * `faker.seed(n)` re-seeds — written out step for step, so that each of a mock's seeded generators
 * can own one without building a Faker of its own (thirty-odd modules with their methods bound,
 * ~0.25 ms; a start has a seeded generator per fixture entry). Faker's is reachable only through a
 * Faker (the package's main entry, which exports it, loads every locale). Seeded alike, both give
 * the same numbers, so faker gives the same values (test/foundation/faker-randomizer.test.ts).
 */
export class FakerRandomizer implements Randomizer {
  private readonly state = new Uint32Array(N);
  private index = N;

  // Both are fields, bound to this: faker calls them detached from the object.

  /** Seeds as faker's does: a number with MT19937's init_genrand, a list with init_by_array. */
  readonly seed = (seed: number | number[]): void => {
    if (typeof seed === "number") initBySeed(this.state, seed);
    else initByArray(this.state, seed);
    twist(this.state);
    this.index = 0;
  };

  /** A float in [0, 1) of 53 random bits (MT19937's genrand_res53). */
  readonly next = (): number => {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) * 11102230246251565e-32;
  };

  private nextUint32(): number {
    let y = this.state[this.index] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    if (++this.index >= N) {
      twist(this.state);
      this.index = 0;
    }
    return y >>> 0;
  }
}

function initBySeed(state: Uint32Array, seed: number): void {
  state[0] = seed;
  for (let i = 1; i < N; i++) {
    const prev = state[i - 1] as number;
    state[i] = Math.imul(1812433253, prev ^ (prev >>> 30)) + i;
  }
}

function initByArray(state: Uint32Array, key: number[]): void {
  initBySeed(state, 19650218);
  let i = 1;
  let j = 0;
  for (let k = Math.max(N, key.length); k !== 0; k--) {
    const prev = state[i - 1] as number;
    state[i] = Math.trunc(((state[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + (key[j] as number) + j);
    i++;
    j++;
    if (i >= N) {
      state[0] = state[N - 1] as number;
      i = 1;
    }
    if (j >= key.length) j = 0;
  }
  for (let k = N - 1; k !== 0; k--) {
    const prev = state[i - 1] as number;
    state[i] = ((state[i] as number) ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i;
    i++;
    if (i >= N) {
      state[0] = state[N - 1] as number;
      i = 1;
    }
  }
  state[0] = 0x80000000;
}

/** The next N words of the sequence, in place. */
function twist(state: Uint32Array): void {
  for (let k = 0; k < N; k++) {
    const y = ((state[k] as number) & UPPER) | ((state[(k + 1) % N] as number) & LOWER);
    state[k] = (state[(k + 397) % N] as number) ^ (y >>> 1) ^ (-(y & 1) & MATRIX);
  }
}
