// Build step: parses the bundled YAML scenarios (scenarios/*.yaml) into dist/prebuilt-yaml.json,
// keyed by a digest of each text, so that a mock serving them does not load the yaml package or parse
// them at start-up (src/core/prebuilt-yaml.ts). A value JSON would not carry unchanged is left out.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { PREBUILT_YAML } = await import(join(ROOT, "dist/modules/core/prebuilt-yaml.js"));
const { sha256Hex } = await import(join(ROOT, "dist/modules/core/digest.js"));
const { exactJsonText } = await import(join(ROOT, "dist/modules/core/json.js"));
const { YAML_OPTIONS } = await import(join(ROOT, "dist/modules/core/read-documents.js"));

const folder = join(ROOT, "scenarios");
const out = {};
for (const name of readdirSync(folder).filter((n) => /\.ya?ml$/i.test(n)).sort()) {
  const text = readFileSync(join(folder, name), "utf8");
  const value = parse(text, YAML_OPTIONS);
  const json = exactJsonText(value);
  if (json !== undefined) out[sha256Hex(text)] = json;
}
writeFileSync(PREBUILT_YAML, JSON.stringify(out));
process.stderr.write(`parse-bundled-yaml: ${Object.keys(out).length} files parsed into dist/prebuilt-yaml.json\n`);
