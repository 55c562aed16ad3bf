import { describe, expect, it } from "vitest";
import { Faker, en, base } from "@faker-js/faker";
import { fakerAlphanumeric, fakerInt } from "../../src/core/faker-draws.js";
import { FakerRandomizer } from "../../src/core/faker-randomizer.js";

// Fixture completion draws these without loading faker; they must be what faker gives from the same sequence.
describe("faker values drawn without faker", () => {
  it("are faker's number.int and string.alphanumeric, call after call, for many seeds and ranges", () => {
    const DAY = 86_400_000;
    const ranges: [number, number][] = [[30 * DAY, 400 * DAY], [0, 20 * DAY], [0, 1], [-5, 5], [7, 7], [0.5, 3.5], [0, 2 ** 53 - 1]];
    for (let seed = 0; seed < 200; seed++) {
      const ours = new FakerRandomizer();
      const faker = new Faker({ locale: [en, base], randomizer: new FakerRandomizer() });
      ours.seed(seed);
      faker.seed(seed);
      for (const [min, max] of ranges) expect(fakerInt(ours, min, max), `seed ${seed} [${min}, ${max}]`).toBe(faker.number.int({ min, max }));
      expect(fakerAlphanumeric(ours, 40), `seed ${seed}`).toBe(faker.string.alphanumeric(40));
      expect(fakerInt(ours, 0, 1000), `seed ${seed}, after`).toBe(faker.number.int({ min: 0, max: 1000 }));
    }
  });

  it("refuse a range faker refuses", () => {
    expect(() => fakerInt(new FakerRandomizer(), 5, 1)).toThrow("Max 1 should be greater than min 5.");
  });
});
