import { hash, randomBytes, randomUUID } from "node:crypto";
import type { Faker, Randomizer } from "@faker-js/faker";
import { loadFaker } from "./lazy-faker.js";

/**
 * The one source of randomness of a mock instance. With a seed every value it hands out (ids, tokens,
 * faker output, jitter) is the same on every run; without one it falls back to crypto randomness.
 * Its state can be saved and restored, so `reset()` replays the same sequence.
 */
export class Random {
  /** This generator's own faker, built on first use. */
  private fakerInstance: Faker | undefined;
  /** The seed faker gets before its next use: a number, or how to compute it (paid only when faker is used). */
  private fakerSeed: number | (() => number);
  /** Whether faker was seeded with fakerSeed (since then only its own use moves it on). */
  private fakerSeeded = false;
  /**
   * Faker draws from a sequence of its own, sfc32 like this one's, which `faker.seed()` sets from a
   * digest of the seed: seeding faker per record costs a digest, not faker's Mersenne Twister set-up.
   */
  private fakerState: RandomState = [0, 0, 0, 0];
  private readonly fakerRandomizer: Randomizer = {
    next: () => sfc32(this.fakerState),
    seed: (seed) => {
      this.fakerState = hashSeed(String(seed));
    },
  };
  private state: RandomState;
  private readonly seedText: string;

  /**
   * Without a seed, the sequence follows from random seed text. `seeded` false with a seed: ids and
   * bytes still come from crypto, and the rest follows from the seed (an unseeded generator's children).
   */
  constructor(
    seed?: number | string,
    readonly seeded: boolean = seed !== undefined && seed !== null && seed !== "",
  ) {
    this.seedText = seed !== undefined && seed !== null && seed !== "" ? String(seed) : randomBytes(16).toString("hex");
    this.state = hashSeed(this.seedText);
    this.fakerSeed = this.int(0, 2 ** 31 - 1);
  }

  /**
   * Faker, seeded from this generator. Built on first use (loading faker costs more than the rest of
   * start-up, and most generators never call it): the sequence is the same as if it had been built up
   * front, because the seed it gets was drawn in the constructor.
   */
  get faker(): Faker {
    const faker = (this.fakerInstance ??= loadFaker(this.fakerRandomizer));
    if (!this.fakerSeeded) {
      faker.seed(typeof this.fakerSeed === "number" ? this.fakerSeed : this.fakerSeed());
      this.fakerSeeded = true;
    }
    return faker;
  }

  /** Faker re-seeded with seedFor(label) before its next use (a run whose templates never call faker pays nothing). */
  seedFakerFor(label: string): void {
    this.seedFaker(() => this.seedFor(label));
  }

  /** A float in [0, 1). */
  next(): number {
    return sfc32(this.state);
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Random.pick needs at least one item");
    return items[this.int(0, items.length - 1)] as T;
  }

  bytes(n: number): Buffer {
    if (!this.seeded) return randomBytes(n);
    return this.fill(Buffer.alloc(n));
  }

  private fill<T extends Uint8Array>(out: T): T {
    for (let i = 0; i < out.length; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  hex(chars: number): string {
    return this.bytes(Math.ceil(chars / 2)).toString("hex").slice(0, chars);
  }

  /** A random (version 4) UUID. */
  uuid4(): string {
    if (!this.seeded) return randomUUID();
    const b = this.fill(idBytes);
    b[6] = ((b[6] as number) & 0x0f) | 0x40;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    return formatUuid(b);
  }

  /** A time-ordered (version 7) UUID, as the Python agent server uses for run ids. */
  uuid7(unixMs: number): string {
    const b = this.seeded ? this.fill(idBytes) : randomBytes(16);
    // The low 48 bits of the milliseconds, big-endian. Clock instants stay below 2^53 (MAX_INSTANT),
    // where dividing by a power of two is exact.
    const ms = Math.max(0, Math.floor(unixMs));
    for (let i = 0; i < 6; i++) b[i] = Math.floor(ms / 2 ** (8 * (5 - i))) % 256;
    b[6] = ((b[6] as number) & 0x0f) | 0x70;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    return formatUuid(b);
  }

  /** A number fixed by the seed and the label (random without a seed): seeds for per-record generators. */
  seedFor(label: string): number {
    return hash("sha256", `${this.seedText}/${label}`, "buffer").readUInt32LE(0) >>> 1;
  }

  /** A child generator whose sequence depends only on this seed and the label, not on call order; unseeded if this one is. */
  derive(label: string): Random {
    return new Random(`${this.seedText}/${label}`, this.seeded);
  }

  /**
   * Marks the current point of the sequence so that restore() can return to it. Faker keeps its own
   * generator whose state cannot be read, so it is re-seeded from ours here and again on restore().
   */
  checkpoint(): RandomState {
    const saved = [...this.state] as RandomState;
    this.seedFaker(fakerSeedFrom(saved));
    return saved;
  }

  restore(saved: RandomState): void {
    this.state = [...saved] as RandomState;
    this.seedFaker(fakerSeedFrom(saved));
  }

  private seedFaker(seed: number | (() => number)): void {
    this.fakerSeed = seed;
    this.fakerSeeded = false;
  }
}

export type RandomState = [number, number, number, number];

function fakerSeedFrom(state: RandomState): number {
  return (state[0] ^ state[1] ^ state[2] ^ state[3]) >>> 1;
}

/** uuid5 (SHA-1, RFC 4122 §4.3) of `name` in a namespace (its 16 bytes: uuidBytes) — the agent server derives default assistant ids this way. */
export function uuid5(name: string, namespace: Uint8Array): string {
  const digest = hash("sha1", Buffer.concat([namespace, Buffer.from(name, "utf8")]), "buffer");
  digest[6] = ((digest[6] as number) & 0x0f) | 0x50;
  digest[8] = ((digest[8] as number) & 0x3f) | 0x80;
  return formatUuid(digest.subarray(0, 16));
}

/** A UUID's 16 bytes: a uuid5 namespace (constant namespaces are converted once, where they are declared). */
export function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ""), "hex");
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_PATTERN.test(value);
}

const HEX = Buffer.from("0123456789abcdef");
const DASH = 0x2d;
/** A seeded id's bytes and its text, before it is decoded: every generated record draws a few ids. */
const idBytes = new Uint8Array(16);
const idText = Buffer.alloc(36);

/**
 * 16 bytes as a UUID's text, decoded from one buffer: a single flat string (one made of slices and
 * concatenations is a tree of string objects, several times the memory of a generated record's ids).
 */
function formatUuid(b: Uint8Array): string {
  const out = idText;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = DASH;
    const byte = b[i] as number;
    out[at++] = HEX[byte >> 4] as number;
    out[at++] = HEX[byte & 15] as number;
  }
  return out.toString("latin1");
}

/** sfc32: small, fast and well distributed; good enough for test data. A float in [0, 1); moves `state` on. */
function sfc32(state: RandomState): number {
  const a = state[0] >>> 0, b = state[1] >>> 0, c = state[2] >>> 0, d = state[3] >>> 0;
  const t = (((a + b) | 0) + d) | 0;
  state[3] = (d + 1) | 0;
  state[0] = b ^ (b >>> 9);
  state[1] = (c + (c << 3)) | 0;
  state[2] = (((c << 21) | (c >>> 11)) + t) | 0;
  return (t >>> 0) / 4294967296;
}

function hashSeed(text: string): RandomState {
  const d = hash("sha256", text, "buffer");
  return [d.readUInt32LE(0), d.readUInt32LE(4), d.readUInt32LE(8), d.readUInt32LE(12)];
}
