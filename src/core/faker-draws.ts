import type { Randomizer } from "@faker-js/faker";

/**
 * The few faker values fixture completion draws, computed as faker computes them (its v10 source:
 * `number.int`, `helpers.arrayElement`, `string.alphanumeric`) from the same sequence, so that a
 * start that needs nothing else from faker does not load it — a fifth of a first start.
 * test/foundation/faker-draws.test.ts compares each with faker itself over many seeds, so a faker
 * release that changes them fails there rather than changing seeded values unnoticed.
 */

/** `faker.number.int({ min, max })`. */
export function fakerInt(sequence: Randomizer, min: number, max: number): number {
  const low = Math.ceil(min);
  const high = Math.floor(max);
  if (low === high) return low;
  if (high < low) throw new Error(`Max ${max} should be greater than min ${min}.`);
  return Math.floor(sequence.next() * (high - low + 1) + low);
}

const ALPHANUMERIC = [..."0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"];

/** `faker.string.alphanumeric(length)`: digits, then lower, then upper case, as faker lists them. */
export function fakerAlphanumeric(sequence: Randomizer, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[fakerInt(sequence, 0, ALPHANUMERIC.length - 1)];
  return out;
}
