// Build step (after tsc): compiles the validators a mock needs with ajv and writes each as ajv's
// standalone code into dist/schemas/validators/<mode>/, where the registry loads them instead of
// loading ajv and compiling at start-up (src/schemas/prebuilt-validators.ts). Covered:
// - exact mode: every schema document and `$defs` entry (records, fixtures, scenarios, fault rules…),
//   and the inline response schemas of route declarations;
// - request and defaults modes: the path, query, header and body schemas of every route declaration,
//   and what seeding the bundled fixtures and scenarios checks.
// Anything else is still compiled with ajv when first needed.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const { default: standaloneCode } = require("ajv/dist/standalone");

const dist = (path) => import(join(ROOT, "dist/modules", path));
const { schemas } = await dist("schemas/registry.js");
const { makeAjv, VALIDATOR_MODES } = await dist("schemas/validator-modes.js");
const { PREBUILT_FOLDER, PrebuiltValidators } = await dist("schemas/prebuilt-validators.js");
const { createApp, mockOf } = await dist("app.js");
const { contextOf } = await dist("mock-control.js");
const { BUNDLED_SCENARIOS } = await dist("options.js");

const schemaDir = join(ROOT, "dist", "schemas");
rmSync(join(schemaDir, PREBUILT_FOLDER), { recursive: true, force: true });

// With response checks on, building the app makes every route declaration's validators (as the test
// suite does at start); seeding the bundled fixtures and scenarios makes the checks they need.
const registry = schemas();
contextOf(mockOf(createApp({ seed: "build", checkResponses: true, scenarios: [BUNDLED_SCENARIOS] }))).close();

const request = registry.madeKeys("request");
const keys = {
  exact: new Set([...registry.allRefs(), ...registry.madeKeys("exact")]),
  request: new Set(request),
  defaults: new Set([...request, ...registry.madeKeys("defaults")]),
};
const folder = join(schemaDir, PREBUILT_FOLDER);
let files = 0;
for (const mode of VALIDATOR_MODES) {
  const ajv = makeAjv(mode, { validateSchema: false, source: true });
  for (const schema of registry.allDocuments()) ajv.addSchema(schema);
  for (const key of keys[mode]) {
    const validate = key.startsWith("inline:") ? ajv.compile(JSON.parse(key.slice("inline:".length))) : ajv.getSchema(key);
    if (!validate) throw new Error(`compile-validators: no schema ${key}`);
    const file = PrebuiltValidators.file(folder, registry.fingerprint, mode, key);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, standaloneCode(ajv, validate));
    files++;
  }
}
process.stderr.write(`compile-validators: ${files} validators written to dist/schemas/${PREBUILT_FOLDER}/\n`);
