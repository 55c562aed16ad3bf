import { describe, expect, it } from "vitest";
import { Faker, en, base, generateMersenne53Randomizer } from "@faker-js/faker";
import { FakerRandomizer } from "../../src/core/faker-randomizer.js";
import { Random } from "../../src/core/random.js";

const SEEDS: (number | number[])[] = [0, 1, 42, 2 ** 31 - 1, 2 ** 32 + 5, -7, 3.5, 2 ** 53 - 1, [], [1, 2, 3], [2 ** 32 + 1, -1, 0.5], Array.from({ length: 700 }, (_, i) => i * 7919)];

describe("FakerRandomizer", () => {
  it("draws faker's own numbers for every kind of seed, across many twists and after re-seeding", () => {
    for (const seed of SEEDS) {
      const ours = new FakerRandomizer();
      const fakers = generateMersenne53Randomizer();
      ours.seed(seed);
      fakers.seed(seed);
      const draws = (r: { next(): number }) => Array.from({ length: 2000 }, () => r.next());
      expect(draws(ours), `seed ${JSON.stringify(seed).slice(0, 40)}`).toEqual(draws(fakers));
      ours.seed(99);
      fakers.seed(99);
      expect(draws(ours)).toEqual(draws(fakers));
    }
  });

  it("gives a Faker the values of one built and seeded as faker builds it", () => {
    const calls = (f: Faker) => [f.person.fullName(), f.internet.email(), f.string.alphanumeric(40), f.number.int({ min: 0, max: 10 ** 9 }), f.git.branch(), f.system.semver(), f.helpers.arrayElement(["a", "b", "c"])];
    const randomizer = new FakerRandomizer();
    const ours = new Faker({ locale: [en, base], randomizer });
    const theirs = new Faker({ locale: [en, base] });
    for (const seed of [1, 42, 1234567]) {
      ours.seed(seed);
      theirs.seed(seed);
      expect(calls(ours)).toEqual(calls(theirs));
    }
  });
});

describe("Random's faker", () => {
  it("keeps each generator's sequence while generators take turns at the shared faker", () => {
    const draw = (r: Random) => [r.faker.person.firstName(), r.faker.internet.domainWord(), r.faker.number.int(1000)];
    const alone = ["a", "b", "c"].map((seed) => {
      const r = new Random(seed);
      return [draw(r), draw(r), draw(r)];
    });
    const generators = ["a", "b", "c"].map((seed) => new Random(seed));
    const turns: unknown[][][] = [[], [], []];
    for (let round = 0; round < 3; round++) generators.forEach((r, i) => turns[i]?.push(draw(r)));
    expect(turns).toEqual(alone);
  });
});
