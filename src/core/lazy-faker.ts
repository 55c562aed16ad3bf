import { createRequire } from "node:module";
import type { Faker, Randomizer } from "@faker-js/faker";

const require = createRequire(import.meta.url);
let FakerClass: (new (options: { locale: unknown; randomizer?: Randomizer }) => Faker) | undefined;
let englishDefinitions: unknown;

/**
 * A new English faker, loading faker on the first call. Synchronous (require of an ES module, which
 * Node ≥ 20.19 does) because record generation is: createApp() stays synchronous. Only the English
 * locale is loaded — the package's main entry loads all sixty-odd, which is most of its import time.
 */
export function loadFaker(randomizer?: Randomizer): Faker {
  if (!FakerClass) {
    const { faker } = require("@faker-js/faker/locale/en") as { faker: Faker };
    FakerClass = faker.constructor as unknown as typeof FakerClass;
    englishDefinitions = faker.rawDefinitions;
  }
  return new (FakerClass as NonNullable<typeof FakerClass>)({ locale: englishDefinitions, randomizer });
}

/** The randomizer of whoever asked for the shared faker last. */
let current: Randomizer | undefined;
/** What the shared faker draws from (functions that do not use `this`: faker calls them detached). */
const switchboard: Randomizer = {
  next: () => (current as Randomizer).next(),
  seed: (seed) => (current as Randomizer).seed(seed),
};
let shared: Faker | undefined;

/**
 * The process's one faker, drawing from `randomizer` until the next call. Faker's modules keep no
 * state of their own — every value comes from the randomizer — so this gives the values a faker
 * built on `randomizer` would, without building one (~0.25 ms) for each seeded generator. Use it
 * at once: after another generator asks for faker, it draws from that one's randomizer.
 */
export function fakerDrawingFrom(randomizer: Randomizer): Faker {
  current = randomizer;
  shared ??= loadFaker(switchboard);
  return shared;
}
