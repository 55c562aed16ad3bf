import { readFileSync } from "node:fs";
import { codePath } from "./code-root.js";
import { sha256Hex } from "./digest.js";

/** Written by the build (scripts/parse-bundled-yaml.mjs): digest of a YAML text → its value as JSON text. */
export const PREBUILT_YAML = codePath("prebuilt-yaml.json");

let parsed: Map<string, string> | undefined;

/**
 * The value of a YAML text the build already parsed — the bundled scenarios — or undefined. Loading
 * the yaml package and parsing those files was the largest part of the CLI's start-up once validators
 * were prebuilt. A text is found only when it is byte for byte the one parsed, and the build keeps
 * only values that JSON carries unchanged; each call returns a fresh copy. Without the build's file
 * (the test suite runs from src/) every text is parsed.
 */
export function prebuiltYaml(text: string): unknown {
  if (!parsed) {
    try {
      parsed = new Map(Object.entries(JSON.parse(readFileSync(PREBUILT_YAML, "utf8")) as Record<string, string>));
    } catch {
      parsed = new Map();
    }
  }
  const json = parsed.get(sha256Hex(text));
  return json === undefined ? undefined : JSON.parse(json);
}
