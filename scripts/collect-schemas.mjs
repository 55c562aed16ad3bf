// Build step (after the schemas are copied): collects every schema document of dist/schemas and their
// fingerprint into dist/schema-documents.json, which the registry reads in place of ~50 files and
// their digest when a mock starts from dist/ (src/schemas/registry.ts). Same recipe as reading the
// folder: collectSchemas() writes what it returns.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { COLLECTED_SCHEMAS, collectSchemas } = await import(join(ROOT, "dist/modules/schemas/registry.js"));

const collected = collectSchemas(join(ROOT, "dist/schemas"));
writeFileSync(COLLECTED_SCHEMAS, JSON.stringify(collected));
process.stderr.write(`collect-schemas: ${Object.keys(collected.texts).length} schema documents written to dist/schema-documents.json\n`);
