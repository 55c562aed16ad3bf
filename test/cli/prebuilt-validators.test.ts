import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { SchemaRegistry as SourceRegistry } from "../../src/schemas/registry.js";

// The validators the build writes into dist/schemas/validators/ (ajv's standalone code) replace ajv's
// own compilation in a running mock: they must cover what a mock needs and answer exactly as ajv does.
// dist/ is what is tested (npm test builds it before vitest runs).
const DIST = join(import.meta.dirname, "../../dist");
/** tsc's modules (the package's entry points are bundles of them). */
const MODULES = join(DIST, "modules");
const { SchemaRegistry, schemas } = (await import(join(MODULES, "schemas/registry.js"))) as typeof import("../../src/schemas/registry.js");
const { PrebuiltValidators } = (await import(join(MODULES, "schemas/prebuilt-validators.js"))) as typeof import("../../src/schemas/prebuilt-validators.js");
const { makeAjv, VALIDATOR_MODES } = (await import(join(MODULES, "schemas/validator-modes.js"))) as typeof import("../../src/schemas/validator-modes.js");
const { createApp, mockOf } = (await import(join(MODULES, "app.js"))) as typeof import("../../src/app.js");
const { contextOf } = (await import(join(MODULES, "mock-control.js"))) as typeof import("../../src/mock-control.js");
const { BUNDLED_SCENARIOS } = (await import(join(MODULES, "options.js"))) as typeof import("../../src/options.js");

const registry = schemas();
const prebuilt = new PrebuiltValidators([join(DIST, "schemas")], registry.fingerprint);
// Every route declaration's validators, and the checks of seeding the bundled fixtures and scenarios.
contextOf(mockOf(createApp({ seed: 7, checkResponses: true, scenarios: [BUNDLED_SCENARIOS] }))).close();

/** Values of many shapes, so that most keywords of most schemas fail somewhere. */
const SAMPLES: unknown[] = [null, 0, 1.5, -1, "", "text", "2026-01-15T09:00:00Z", true, [], [{}], {}, { id: "x", name: 1, status: "UNKNOWN", extra: [] }];

function outcome(validate: ValidateFunction, data: unknown): { valid: boolean; data: unknown; errors: ErrorObject[] | null | undefined } {
  const copy = structuredClone(data);
  const valid = validate(copy) as boolean;
  return { valid, data: copy, errors: validate.errors };
}

describe("prebuilt validators (dist/schemas/validators)", () => {
  it("exist for every schema in exact mode and for everything a mock validates at start-up", () => {
    const missing: string[] = [];
    for (const mode of VALIDATOR_MODES) {
      const keys = mode === "exact" ? [...registry.allRefs(), ...registry.madeKeys(mode)] : registry.madeKeys(mode);
      for (const key of keys) if (!prebuilt.load(mode, key)) missing.push(`${mode} ${key.slice(0, 120)}`);
    }
    expect(missing).toEqual([]);
    expect(registry.madeKeys("request").length).toBeGreaterThan(50);
  });

  it("answer as ajv compiling the same schema does: validity, errors, and what they remove or fill in", () => {
    const fresh = new SchemaRegistry(join(DIST, "schemas"));
    let compared = 0;
    for (const mode of VALIDATOR_MODES) {
      const ajv = makeAjv(mode, { validateSchema: false });
      for (const schema of fresh.allDocuments()) ajv.addSchema(schema);
      // Every third key of each mode (at least one): the build writes all of them the same way, and
      // compiling all ~570 with ajv is most of this file's time.
      const keys = [...new Set([...registry.madeKeys(mode), ...(mode === "exact" ? registry.allRefs() : [])])].sort();
      for (const key of keys.filter((_, i) => i % 3 === 0)) {
        const built = prebuilt.load(mode, key) as ValidateFunction;
        const compiled = key.startsWith("inline:") ? ajv.compile(JSON.parse(key.slice("inline:".length))) : (ajv.getSchema(key) as ValidateFunction);
        for (const sample of SAMPLES) expect(outcome(built, sample), `${mode} ${key}`).toEqual(outcome(compiled, sample));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(150);
  });

  it("are what a mock running from src/ (this suite) uses when they were built from the same schemas", () => {
    const fromSource = new SourceRegistry();
    expect(fromSource.fingerprint).toBe(registry.fingerprint);
    const key = registry.allRefs()[0] as string;
    const built = createRequire(import.meta.url)(PrebuiltValidators.file(join(DIST, "schemas/validators"), registry.fingerprint, "exact", key)) as ValidateFunction;
    expect(fromSource.validator(key)).toBe(built);
  });

  it("are not used for other schemas: a changed schema file changes the fingerprint they are found by", () => {
    const other = new PrebuiltValidators([join(DIST, "schemas")], `${registry.fingerprint}-changed`);
    expect(other.load("exact", registry.allRefs()[0] as string)).toBeUndefined();
  });
});
