import { describe, expect, it } from "vitest";
import { Random } from "../../src/core/random.js";
import { fakerFor, generateRecord } from "../../src/store/generate.js";
import { schemas } from "../../src/schemas/registry.js";
import { DEPLOYMENT_REF } from "../../src/control-plane/deployments-store.js";
import { INTEGRATION_REF, REPOSITORY_REF } from "../../src/control-plane/integrations-store.js";
import { PROVIDER_REF } from "../../src/control-plane/providers-store.js";

// Fixture entries are completed from the record schemas (src/store/generate.ts); the seed steps then
// make the values coherent. What the schemas alone give must already be valid, for every record kind.
describe("records generated from their schemas", () => {
  it.each([DEPLOYMENT_REF, INTEGRATION_REF, REPOSITORY_REF, PROVIDER_REF])("%s: every property, valid, for many seeds", (ref) => {
    const random = new Random(7);
    for (let i = 0; i < 40; i++) {
      const record = generateRecord(ref, fakerFor(random, `r/${i}`));
      expect(schemas().check(ref, record), JSON.stringify(record)).toEqual([]);
      expect(Object.keys(record)).toEqual(Object.keys(schemas().inlined(ref).properties as object));
    }
  });

  it("draws only what is not skipped, the same for the same seed and label", () => {
    const draw = (seed: number) => generateRecord(PROVIDER_REF, fakerFor(new Random(seed), "oauth_providers/0"), ["id", "created_at"]);
    const record = draw(1);
    expect(record).not.toHaveProperty("id");
    expect(record).not.toHaveProperty("created_at");
    expect(record).toHaveProperty("client_id");
    expect(draw(1)).toEqual(record);
    expect(draw(2)).not.toEqual(record);
  });
});
