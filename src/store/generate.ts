import { generateSync } from "json-schema-faker";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";

const MAX_CACHED = 5000;
const generated = new Map<string, Record<string, unknown>>();

/**
 * Fills records from the JSON Schemas with json-schema-faker and faker. Each record's values depend
 * only on the seed and the record's label (say "deployments/7"), not on what was generated before
 * it, so adding a fixture never changes the records generated for the others.
 */
export class RecordGenerator {
  constructor(private readonly random: Random) {}

  /**
   * A complete, schema-valid value for `ref`, with every optional property present. The value is fixed
   * by the schema and the label's seed, so it is generated once per process and copied after: a test
   * suite building a seeded mock per file pays json-schema-faker's walk once.
   */
  generate(ref: string, label: string): Record<string, unknown> {
    const seed = this.random.seedFor(label);
    const key = `${ref}\u0000${seed}`;
    let value = generated.get(key);
    if (!value) {
      const faker = this.random.faker;
      faker.seed(seed);
      value = generateSync(schemas().inlined(ref), {
        seed,
        extensions: { faker },
        alwaysFakeOptionals: true,
        maxDefaultItems: 2,
        minDateTime: "2024-01-01T00:00:00Z",
        maxDateTime: "2025-12-31T00:00:00Z",
      }) as Record<string, unknown>;
      // Bounded: unseeded mocks draw new seeds every time and would only fill it.
      if (generated.size >= MAX_CACHED) generated.clear();
      generated.set(key, value);
    }
    // Whether generated now or copied, the shared faker is left in the same state (seeded for this
    // label), so what is drawn after does not depend on an earlier mock in the process.
    this.random.faker.seed(seed);
    return structuredClone(value);
  }

  /** The faker instance, re-seeded for `label` (for values the schemas cannot express well). */
  fakerFor(label: string) {
    const faker = this.random.faker;
    faker.seed(this.random.seedFor(`${label}#faker`));
    return faker;
  }
}
