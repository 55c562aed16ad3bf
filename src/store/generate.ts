import { generateSync } from "json-schema-faker";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";

/**
 * Fills records from the JSON Schemas with json-schema-faker and faker. Each record's values depend
 * only on the seed and the record's label (say "deployments/7"), not on what was generated before
 * it, so adding a fixture never changes the records generated for the others.
 */
export class RecordGenerator {
  constructor(private readonly random: Random) {}

  /** A complete, schema-valid value for `ref`, with every optional property present. */
  generate(ref: string, label: string): Record<string, unknown> {
    const seed = this.random.seedFor(label);
    const faker = this.random.faker;
    faker.seed(seed);
    return generateSync(schemas().inlined(ref), {
      seed,
      extensions: { faker },
      alwaysFakeOptionals: true,
      maxDefaultItems: 2,
      minDateTime: "2024-01-01T00:00:00Z",
      maxDateTime: "2025-12-31T00:00:00Z",
    }) as Record<string, unknown>;
  }

  /** The faker instance, re-seeded for `label` (for values the schemas cannot express well). */
  fakerFor(label: string) {
    const faker = this.random.faker;
    faker.seed(this.random.seedFor(`${label}#faker`));
    return faker;
  }
}
