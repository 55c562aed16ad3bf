// Build step: ships the JSON Schemas. dist/schemas gets the whole tree (the registry reads it at run
// time); the package's schemas/ folder gets the editor-facing ones under stable names, so that
// `agent-platform-mock/schemas/scenario.json` is both an export and a real file path
// (node_modules/agent-platform-mock/schemas/scenario.json) for VS Code and yaml-language-server.
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Published path (relative to the package) → source schema. Each is self-contained (local $refs only). */
export const PUBLISHED = {
  "schemas/scenario.json": "src/schemas/agent-server/scenario.json",
  "schemas/fixtures.json": "src/schemas/fixtures/fixture-file.json",
};

export function copySchemas(root = ROOT) {
  cpSync(join(root, "src/schemas"), join(root, "dist/schemas"), { recursive: true, filter: (s) => !s.endsWith(".ts") });
  mkdirSync(join(root, "schemas"), { recursive: true });
  for (const [to, from] of Object.entries(PUBLISHED)) cpSync(join(root, from), join(root, to));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) copySchemas();
