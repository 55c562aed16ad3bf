import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// The build parses the bundled YAML scenarios into dist/ so that the mock does not load the yaml
// package at start-up; what it serves must be what parsing the files gives. dist/ is what is tested.
const ROOT = join(import.meta.dirname, "../..");
const { prebuiltYaml } = (await import(join(ROOT, "dist/modules/core/prebuilt-yaml.js"))) as typeof import("../../src/core/prebuilt-yaml.js");
const { YAML_OPTIONS } = (await import(join(ROOT, "dist/modules/core/read-documents.js"))) as typeof import("../../src/core/read-documents.js");
const texts = readdirSync(join(ROOT, "scenarios"))
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => readFileSync(join(ROOT, "scenarios", name), "utf8"));

describe("bundled YAML scenarios parsed at build time (dist/prebuilt-yaml.json)", () => {
  it("give each bundled file's value as the yaml package parses it, a fresh copy each time", () => {
    expect(texts.length).toBeGreaterThan(5);
    for (const text of texts) {
      const value = prebuiltYaml(text);
      expect(value).toEqual(parse(text, YAML_OPTIONS));
      expect(prebuiltYaml(text)).not.toBe(value);
    }
  });

  it("are not used for a text that differs by a byte", () => {
    for (const text of texts) expect(prebuiltYaml(`${text} `)).toBeUndefined();
  });
});
