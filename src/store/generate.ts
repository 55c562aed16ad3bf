import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";
import { jsonSchemaFaker } from "../core/lazy-modules.js";
import { copyJson } from "../core/json.js";
import { draftCache } from "./draft-cache.js";

const MAX_CACHED = 5000;
const generated = new Map<string, Record<string, unknown>>();

/** json-schema-faker's options (part of the disk cache's key). */
const OPTIONS = {
  alwaysFakeOptionals: true,
  maxDefaultItems: 2,
  minDateTime: "2024-01-01T00:00:00Z",
  maxDateTime: "2025-12-31T00:00:00Z",
} as const;

/**
 * Fills records from the JSON Schemas with json-schema-faker and faker. Each record's values depend
 * only on the generator's seed and the record's label (say "deployments/7"), not on what was
 * generated before it, so adding a fixture never changes the records generated for the others.
 */
export class RecordGenerator {
  constructor(private readonly random: Random) {}

  /**
   * A complete, schema-valid value for `ref`, with every optional property present. The value is fixed
   * by the schema and the label's seed, so it is generated once per process and copied after (a test
   * suite building a seeded mock per file pays json-schema-faker's walk once), and a seeded mock's is
   * kept on disk for the next process (draft-cache.ts).
   */
  generate(ref: string, label: string): Record<string, unknown> {
    const seed = this.random.seedFor(label);
    const key = `${ref}\u0000${seed}`;
    let value = generated.get(key);
    if (!value) {
      const schema = schemas().inlined(ref);
      const disk = draftCache();
      const diskKey = this.random.seeded ? disk.key(schema, seed, OPTIONS) : undefined;
      value = diskKey === undefined ? undefined : disk.read(diskKey);
      if (!value) {
        const faker = this.random.faker;
        faker.seed(seed);
        // Through JSON, as a draft read from the disk cache is: both ways give the same value.
        const text = JSON.stringify(jsonSchemaFaker().generateSync(schema, { seed, extensions: { faker }, ...OPTIONS }));
        value = JSON.parse(text) as Record<string, unknown>;
        if (diskKey !== undefined) disk.write(diskKey, text);
      }
      // Bounded: unseeded mocks draw new seeds every time and would only fill it.
      if (generated.size >= MAX_CACHED) generated.clear();
      generated.set(key, value);
    }
    return copyJson(value);
  }

  /** Faker seeded for `label` (for values the schemas cannot express well): the same values whatever was drawn before. */
  fakerFor(label: string) {
    const faker = this.random.faker;
    faker.seed(this.random.seedFor(`${label}#faker`));
    return faker;
  }
}
