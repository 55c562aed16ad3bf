import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

let yamlModule: typeof import("js-yaml") | undefined;
let cronerModule: typeof import("croner") | undefined;
let ajvModules: { Ajv2020: typeof import("ajv/dist/2020.js").Ajv2020; addFormats: (ajv: import("ajv/dist/2020.js").Ajv2020) => unknown } | undefined;

/**
 * Packages loaded on first use rather than when the library is imported (issue 15: import time).
 * Synchronous requires, so the callers (createApp, file reading) stay synchronous.
 */
/** js-yaml: only YAML scenario and fixture files need it. */
export function yaml(): typeof import("js-yaml") {
  return (yamlModule ??= require("js-yaml") as typeof import("js-yaml"));
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
