import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

let yamlModule: typeof import("yaml") | undefined;
let jsonSchemaFakerModule: typeof import("json-schema-faker") | undefined;
let cronerModule: typeof import("croner") | undefined;
let ajvModules: { Ajv2020: typeof import("ajv/dist/2020.js").Ajv2020; addFormats: (ajv: import("ajv/dist/2020.js").Ajv2020) => unknown } | undefined;

/**
 * Packages loaded on first use rather than when the library is imported (issue 15: import time).
 * Synchronous requires, so the callers (createApp, file reading) stay synchronous.
 */
/** The yaml package: only YAML scenario and fixture files need it. */
export function yaml(): typeof import("yaml") {
  return (yamlModule ??= require("yaml") as typeof import("yaml"));
}

/** ajv (JSON Schema 2020-12) with ajv-formats: needed when the first mock is built, not at import. */
export function ajv() {
  if (!ajvModules) {
    const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    const formats = require("ajv-formats") as { default: (ajv: unknown) => unknown };
    ajvModules = { Ajv2020, addFormats: formats.default };
  }
  return ajvModules;
}

/** croner: only crons (`POST /threads/{id}/runs/crons`, `/runs/crons`) read schedules. */
export function croner(): typeof import("croner") {
  return (cronerModule ??= require("croner") as typeof import("croner"));
}

/**
 * json-schema-faker: only a fixture draft that no cache holds needs it. Its package exports an ES
 * module to `import` only, so its entry is found through its package.json and required by path
 * (Node ≥ 20.19 requires ES modules), which keeps record generation synchronous.
 */
export function jsonSchemaFaker(): typeof import("json-schema-faker") {
  if (!jsonSchemaFakerModule) {
    const { dir, manifest } = installedPackage("json-schema-faker");
    const exports = manifest.exports as { ".": { import: { default: string } } };
    jsonSchemaFakerModule = require(join(dir, exports["."].import.default)) as typeof import("json-schema-faker");
  }
  return jsonSchemaFakerModule;
}

/** Where node would find a package, and its package.json (read directly: not every package exports it). */
export function installedPackage(name: string): { dir: string; manifest: Record<string, unknown> } {
  for (const modules of require.resolve.paths(name) ?? []) {
    const dir = join(modules, name);
    try {
      return { dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown> };
    } catch {
      // Not installed in this node_modules: look further up.
    }
  }
  throw new Error(`cannot find the package ${name}`);
}
