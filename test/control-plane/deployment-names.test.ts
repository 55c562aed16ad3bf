import { describe, expect, it } from "vitest";
import { TakenNames } from "../../src/control-plane/deployment-names.js";
import { Random } from "../../src/core/random.js";

/**
 * TakenNames keeps a generated set's `<base>-<n>` names by record instead of in a hash set; it must
 * answer as a set of every name would, whatever the names look like.
 */
describe("TakenNames", () => {
  it("answers as a set of every name taken, for names of any form", () => {
    const random = new Random(3);
    const taken = new TakenNames();
    const every = new Set<string>();
    const bases = ["alpha", "beta-gamma", "delta-7", "x"];
    const candidate = (record: number): string => {
      const base = random.pick(bases);
      switch (random.int(0, 6)) {
        case 0: // another record's number (earlier, later, or this one)
          return `${base}-${Math.max(0, record + random.int(-3, 3)) + 1}`;
        case 1: // a number with a leading zero, or none
          return random.next() < 0.5 ? `${base}-0${record + 1}` : `${base}-`;
        case 2: // shortened or drawn again after a clash
          return `${base}-${record + 1}-${random.int(0, 99)}`;
        case 3: // a name listed by a fixture entry
          return `${base}-listed`;
        default:
          return `${base}-${record + 1}`;
      }
    };
    for (const name of ["x-1", "alpha-listed", "beta-gamma-3"]) {
      taken.add(name);
      every.add(name);
    }
    for (let set = 0; set < 3; set++) {
      const names = taken.generatedSet();
      for (let record = 0; record < 400; record++) {
        for (let probe = 0; probe < 5; probe++) {
          const name = candidate(record);
          expect(taken.has(name), name).toBe(every.has(name));
        }
        let name = candidate(record);
        while (every.has(name)) name = `${name}-${random.int(0, 99)}`;
        expect(taken.has(name), name).toBe(false);
        names.push(name);
        every.add(name);
        expect(taken.has(name), name).toBe(true);
      }
    }
  });
});
