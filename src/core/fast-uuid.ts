import type { Random } from "./random.js";

/** Character codes of the hex digits. */
const HEX = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const hex = (n: number) => HEX[n & 0xf] as number;
const DASH = 45;

/**
 * A version 4 UUID's 128 bits from four draws of the seeded generator, as four 32-bit words written
 * to `out` from `at` (version and variant bits set): what uuidText formats. Kept as words, an id
 * costs 16 bytes of a typed array instead of a string object (generated revisions' ids).
 */
export function drawUuidWords(random: Random, out: Uint32Array, at: number): void {
  out[at] = (random.next() * 4294967296) >>> 0;
  out[at + 1] = (((random.next() * 4294967296) >>> 0) & 0xffff0fff) | 0x00004000;
  out[at + 2] = (((random.next() * 4294967296) >>> 0) & 0x3fffffff) | 0x80000000;
  out[at + 3] = (random.next() * 4294967296) >>> 0;
}

/**
 * The UUID of four words (drawUuidWords) as text, made by one String.fromCharCode call: one flat
 * string (a concatenated one would keep its pieces, several times the memory, in every record),
 * without the round trip through a Buffer that decoding bytes costs.
 */
export function uuidText(words: Uint32Array, at: number): string {
  const a = words[at] as number;
  const b = words[at + 1] as number;
  const c = words[at + 2] as number;
  const d = words[at + 3] as number;
  return String.fromCharCode(
    hex(a >>> 28), hex(a >>> 24), hex(a >>> 20), hex(a >>> 16), hex(a >>> 12), hex(a >>> 8), hex(a >>> 4), hex(a), DASH,
    hex(b >>> 28), hex(b >>> 24), hex(b >>> 20), hex(b >>> 16), DASH, hex(b >>> 12), hex(b >>> 8), hex(b >>> 4), hex(b), DASH,
    hex(c >>> 28), hex(c >>> 24), hex(c >>> 20), hex(c >>> 16), DASH, hex(c >>> 12), hex(c >>> 8), hex(c >>> 4), hex(c),
    hex(d >>> 28), hex(d >>> 24), hex(d >>> 20), hex(d >>> 16), hex(d >>> 12), hex(d >>> 8), hex(d >>> 4), hex(d),
  );
}

const scratch = new Uint32Array(4);

/**
 * A version 4 UUID from four draws of the seeded generator: random.uuid4() goes through a buffer
 * and a hex string per id, which dominated bulk generation.
 */
export function fastUuid4(random: Random): string {
  drawUuidWords(random, scratch, 0);
  return uuidText(scratch, 0);
}
