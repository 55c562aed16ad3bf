import { hash, randomBytes, randomUUID } from "node:crypto";
import { sha1Words } from "./sha1.js";
import { uuidText } from "./fast-uuid.js";
import type { Faker } from "@faker-js/faker";
import { fakerDrawingFrom } from "./lazy-faker.js";
import { FakerRandomizer } from "./faker-randomizer.js";

/**
 * The one source of randomness of a mock instance. With a seed every value it hands out (ids, tokens,
 * faker output, jitter) is the same on every run; without one it falls back to crypto randomness.
 * Its state can be saved and restored, so `reset()` replays the same sequence.
 */
export class Random {
  readonly seeded: boolean;
  /** This generator's own faker sequence (made on first use); the faker it is drawn through is shared. */
  private fakerRandomizer: FakerRandomizer | undefined;
  /**
   * The seed faker gets before its next use (faker is loaded and built only then): a number, or how
   * to compute it (seedFakerFor's hash is paid only by a run whose templates call faker).
   */
  private fakerSeed: number | (() => number);
  /** Whether faker was seeded with fakerSeed (since then only its own use moves it on). */
  private fakerSeeded = false;
  private state: [number, number, number, number];
  private readonly seedText: string;

  constructor(seed?: number | string) {
    this.seeded = seed !== undefined && seed !== null && seed !== "";
    this.seedText = this.seeded ? String(seed) : randomBytes(16).toString("hex");
    this.state = hashSeed(this.seedText);
    this.fakerSeed = this.int(0, 2 ** 31 - 1);
  }

  /**
   * Faker, seeded from this generator. Loading faker costs more than the rest of start-up, and most
   * mocks never call it after the fixtures are in, so it is loaded on first use: the sequence is the
   * same as if it had been built up front, because the seed it gets was drawn in the constructor.
   * Every generator has a faker sequence of its own but shares the process's one Faker
   * (fakerDrawingFrom): call it at once, never keep it past another generator's use of faker.
   */
  get faker(): Faker {
    return fakerDrawingFrom(this.fakerSequence);
  }

  /**
   * This generator's faker sequence itself, for the few values drawn without faker (core/faker-draws.ts):
   * the numbers faker would take from it, and faker is not loaded for them.
   */
  get fakerSequence(): FakerRandomizer {
    const randomizer = (this.fakerRandomizer ??= new FakerRandomizer());
    if (!this.fakerSeeded) {
      randomizer.seed(typeof this.fakerSeed === "number" ? this.fakerSeed : this.fakerSeed());
      this.fakerSeeded = true;
    }
    return randomizer;
  }

  /**
   * Faker re-seeded with seedFor(label) before its next use. Lazily: faker's state can only be seen by
   * using it, so this is the same as seeding now, but a run whose templates never call faker neither
   * hashes the label nor re-seeds (nor loads) faker.
   */
  seedFakerFor(label: string): void {
    this.seedFaker(() => this.seedFor(label));
  }

  /** Faker re-seeded with `seed` before its next use (lazily, as seedFakerFor). */
  seedFakerWith(seed: number): void {
    this.seedFaker(seed);
  }

  /** The seed as text when seeded, else undefined: what a value fixed by the seed is kept under (seeds whose text is the same give the same values). */
  get seedKey(): string | undefined {
    return this.seeded ? this.seedText : undefined;
  }

  /** A float in [0, 1). */
  next(): number {
    // sfc32: small, fast and well distributed; good enough for test data. The state is updated in
    // place (no array per call): generating 100,000 records draws millions of numbers.
    const state = this.state;
    const a = state[0] >>> 0, b = state[1] >>> 0, c = state[2] >>> 0, d = state[3] >>> 0;
    const t = (((a + b) | 0) + d) | 0;
    state[3] = (d + 1) | 0;
    state[0] = b ^ (b >>> 9);
    state[1] = (c + (c << 3)) | 0;
    state[2] = (((c << 21) | (c >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
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
    return this.drawBytes(Buffer.alloc(n));
  }

  /** Fills `out` with seeded bytes (ids are drawn into a scratch array, not a Buffer each). */
  private drawBytes<T extends Uint8Array>(out: T): T {
    for (let i = 0; i < out.length; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  hex(chars: number): string {
    return this.bytes(Math.ceil(chars / 2)).toString("hex").slice(0, chars);
  }

  /** A random (version 4) UUID. */
  uuid4(): string {
    if (!this.seeded) return randomUUID();
    const b = this.drawBytes(uuidBytes);
    b[6] = ((b[6] as number) & 0x0f) | 0x40;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    return formatUuid(b);
  }

  /** A time-ordered (version 7) UUID, as the Python agent server uses for run ids. */
  uuid7(unixMs: number): string {
    const b = this.seeded ? this.drawBytes(uuidBytes) : this.bytes(16);
    // The low 48 bits of the milliseconds, big-endian. Clock instants stay below 2^53 (MAX_INSTANT),
    // where dividing by a power of two is exact: no BigInt per byte.
    const ms = Math.max(0, Math.floor(unixMs));
    for (let i = 0; i < 6; i++) b[i] = Math.floor(ms / 2 ** (8 * (5 - i))) % 256;
    b[6] = ((b[6] as number) & 0x0f) | 0x70;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    return formatUuid(b);
  }

  /** A number fixed by the seed and the label (random without a seed): seeds for per-record generators. */
  seedFor(label: string): number {
    if (!this.seeded) return randomBytes(4).readUInt32LE(0) >>> 1;
    return hash("sha256", `${this.seedText}/${label}`, "buffer").readUInt32LE(0) >>> 1;
  }

  /** A child generator whose sequence depends only on this seed and the label, not on call order. */
  derive(label: string): Random {
    return new Random(this.seeded ? `${this.seedText}/${label}` : undefined);
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

/** Namespaces as bytes, for the few uuid5 namespaces used over and over (run ids name one per run). */
const namespaceBytes = new Map<string, Buffer>();
const MAX_NAMESPACES = 64;
/** uuid5's message (namespace then name), reused: every run hashes one. A namespace is a UUID's 16 bytes, which the name follows. */
let uuid5Input = new Uint8Array(256);
let uuid5Name = uuid5Input.subarray(16);

const utf8 = new TextEncoder();
/** The 16 bytes of a seeded v4 or v7 id, and the four words of a uuid5, before they are formatted. */
const uuidBytes = new Uint8Array(16);
const uuidWords = new Uint32Array(4);

/**
 * uuid5 (SHA-1, RFC 4122 §4.3) — the agent server derives default assistant ids this way. Every run
 * derives one (its request id): hashed in JavaScript (core/sha1.ts), without a Buffer.
 */
export function uuid5(name: string, namespace: string): string {
  let ns = namespaceBytes.get(namespace);
  if (!ns) {
    ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
    if (namespaceBytes.size >= MAX_NAMESPACES) namespaceBytes.clear();
    namespaceBytes.set(namespace, ns);
  }
  // UTF-8 takes at most three bytes for each UTF-16 code unit.
  if (ns.length + name.length * 3 > uuid5Input.length) {
    uuid5Input = new Uint8Array(ns.length + name.length * 3);
    uuid5Name = uuid5Input.subarray(16);
  }
  uuid5Input.set(ns);
  const { written } = utf8.encodeInto(name, ns.length === 16 ? uuid5Name : uuid5Input.subarray(ns.length));
  const words = sha1Words(uuid5Input, ns.length + written);
  uuidWords[0] = words[0] as number;
  uuidWords[1] = ((words[1] as number) & 0xffff0fff) | 0x00005000;
  uuidWords[2] = ((words[2] as number) & 0x3fffffff) | 0x80000000;
  uuidWords[3] = words[3] as number;
  return uuidText(uuidWords, 0);
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_PATTERN.test(value);
}

function formatUuid(b: Uint8Array): string {
  for (let i = 0; i < 4; i++) uuidWords[i] = (((b[4 * i] as number) << 24) | ((b[4 * i + 1] as number) << 16) | ((b[4 * i + 2] as number) << 8) | (b[4 * i + 3] as number)) >>> 0;
  return uuidText(uuidWords, 0);
}

function hashSeed(text: string): [number, number, number, number] {
  const d = hash("sha256", text, "buffer");
  return [d.readUInt32LE(0), d.readUInt32LE(4), d.readUInt32LE(8), d.readUInt32LE(12)];
}
