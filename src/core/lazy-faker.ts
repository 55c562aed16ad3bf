import { createRequire } from "node:module";
import type { Faker, Randomizer } from "@faker-js/faker";

const require = createRequire(import.meta.url);
let FakerClass: (new (options: { locale: unknown; randomizer?: Randomizer }) => Faker) | undefined;
let englishDefinitions: unknown;

/**
 * A new English faker drawing from `randomizer` (faker's own generator without one), loading faker on
 * the first call. Synchronous (require of an ES module, which Node ≥ 20.19 does) because record
 * generation is: createApp() stays synchronous. Only the English locale is loaded — the package's
 * main entry loads all sixty-odd, which is most of its import time.
 */
export function loadFaker(randomizer?: Randomizer): Faker {
  if (!FakerClass) {
    const { faker } = require("@faker-js/faker/locale/en") as { faker: Faker };
    FakerClass = faker.constructor as unknown as typeof FakerClass;
    englishDefinitions = faker.rawDefinitions;
  }
  return new (FakerClass as NonNullable<typeof FakerClass>)({ locale: englishDefinitions, randomizer });
}
