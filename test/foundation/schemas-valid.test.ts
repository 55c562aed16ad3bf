import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SchemaRegistry, SCHEMA_BASE } from "../../src/schemas/registry.js";

// A running mock adds its schemas without checking them against the meta-schema (start-up speed);
// this is where they are checked.
const SCHEMA_DIR = fileURLToPath(new URL("../../src/schemas/", import.meta.url));

describe("the JSON Schemas in src/schemas", () => {
  it("are valid JSON Schema 2020-12 documents", () => {
    expect(() => new SchemaRegistry(SCHEMA_DIR, { validateSchemas: true })).not.toThrow();
  });

  it("a schema that is not valid JSON Schema would fail this check", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-schemas-"));
    mkdirSync(join(dir, "x"));
    writeFileSync(join(dir, "x", "bad.json"), JSON.stringify({ $id: `${SCHEMA_BASE}x/bad.json`, type: "object", properties: { a: { type: "text" } } }));
    expect(() => new SchemaRegistry(dir, { validateSchemas: true })).toThrow(/schema is invalid/);
    expect(() => new SchemaRegistry(dir)).not.toThrow();
  });
});
