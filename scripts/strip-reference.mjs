#!/usr/bin/env node
// Writes a real service's OpenAPI document into test/reference/ as structure only — paths, operations,
// parameters, schemas, enums — without descriptions, summaries or examples a schema already states.
// The tests compare the mock against these copies, so a clone needs nothing beside it.
// Usage: node scripts/strip-reference.mjs path/to/agent-server.openapi.json [more.json …]
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";

const PROSE = new Set(["description", "summary", "externalDocs", "termsOfService", "contact", "x-codeSamples"]);
// Maps whose keys are names chosen by the document (a property may be called "description").
const NAMED = new Set(["properties", "patternProperties", "$defs", "definitions", "schemas", "paths", "responses", "parameters", "headers", "content", "securitySchemes", "mapping"]);

function strip(value, parentKey) {
  if (Array.isArray(value)) return value.map((item) => strip(item, undefined));
  if (value === null || typeof value !== "object") return value;
  const out = {};
  const named = NAMED.has(parentKey) && parentKey !== "parameters";
  for (const [key, child] of Object.entries(value)) {
    if (!named) {
      if (PROSE.has(key) && (typeof child === "string" || key !== "description")) continue;
      if (key === "examples") continue;
      // A response given only by its example keeps it: the tests read its shape.
      if (key === "example" && "schema" in value) continue;
      if (key === "example" && parentKey !== undefined && !isMediaType(parentKey)) continue;
    }
    out[key] = strip(child, key);
  }
  return out;
}

function isMediaType(key) {
  return /^[a-z]+\/[a-z0-9.+*-]+$/i.test(key);
}

const target = new URL("../test/reference/", import.meta.url);
for (const file of process.argv.slice(2)) {
  const doc = strip(JSON.parse(readFileSync(file, "utf8")), undefined);
  writeFileSync(new URL(basename(file), target), `${JSON.stringify(doc, null, 1)}\n`);
  console.log(`test/reference/${basename(file)}`);
}
