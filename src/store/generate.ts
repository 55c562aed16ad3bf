import type { Randomizer } from "@faker-js/faker";
import type { Random } from "../core/random.js";
import { schemas } from "../schemas/registry.js";
import { jsonSchemaFaker } from "../core/lazy-modules.js";
import { copyJson } from "../core/json.js";
import { fixtureCache } from "./draft-cache.js";

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
 * only on the seed and the record's label (say "deployments/7"), not on what was generated before
 * it, so adding a fixture never changes the records generated for the others.
 */
export class RecordGenerator {
  constructor(private readonly random: Random) {}

  /**
   * A complete, schema-valid value for `ref`, with every optional property present. The value is fixed
   * by the schema and the label's seed, so it is generated once per process and copied after (a test
   * suite building a seeded mock per file pays json-schema-faker's walk once), and a seeded mock's is
   * kept on disk for the next process.
   */
  generate(ref: string, label: string): Record<string, unknown> {
    const seed = this.random.seedFor(label);
    const key = `${ref}\u0000${seed}`;
    let value = generated.get(key);
    if (!value) {
      const schema = schemas().inlined(ref);
      const disk = fixtureCache();
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
    // Whether generated now or copied, faker is left in the same state (seeded for this label), so
    // what is drawn after does not depend on an earlier mock in the process. Lazily: a start whose
    // drafts all come from a cache and that draws nothing from faker after does not build faker.
    this.random.seedFakerWith(seed);
    return copyJson(value);
  }

  /**
   * The faker sequence, re-seeded for `label` (for values the schemas cannot express well), to draw
   * from with core/faker-draws.ts: what `faker.seed(…)` and faker's own calls would do, without faker.
   */
  fakerSequenceFor(label: string): Randomizer {
    const sequence = this.random.fakerSequence;
    sequence.seed(this.random.seedFor(`${label}#faker`));
    return sequence;
  }
}
