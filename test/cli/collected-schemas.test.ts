import { join } from "node:path";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The build collects every schema document of dist/schemas into dist/schema-documents.json, which a
// mock starting from dist/ reads instead of the files: it must hold what reading the folder gives.
// dist/ is what is tested (npm test builds it before vitest runs).
const DIST = join(import.meta.dirname, "../../dist");
const { COLLECTED_SCHEMAS, collectSchemas, SchemaRegistry, schemas } = (await import(join(DIST, "modules/schemas/registry.js"))) as typeof import("../../src/schemas/registry.js");

describe("schema documents collected at build time (dist/schema-documents.json)", () => {
  it("hold every document of dist/schemas, in order, and the fingerprint of their files", () => {
    const fromFiles = collectSchemas(join(DIST, "schemas"));
    expect(Object.keys(fromFiles.texts).length).toBeGreaterThan(30);
    expect(JSON.parse(readFileSync(COLLECTED_SCHEMAS, "utf8"))).toEqual(fromFiles);
  });

  it("are what the built registry serves: the same documents and fingerprint as a registry reading the files", () => {
    const fromFiles = new SchemaRegistry(join(DIST, "schemas"));
    expect(schemas().fingerprint).toBe(fromFiles.fingerprint);
    expect(schemas().allDocuments()).toEqual(fromFiles.allDocuments());
  });
});
