import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import request from "supertest";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { copySchemas, PUBLISHED } from "../../scripts/copy-schemas.mjs";
import { createApp, mockOf } from "../../src/index.js";
import { readDocuments } from "../../src/core/read-documents.js";

const ROOT = join(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown>; files: string[] };

/** Validates with one published schema alone, as an editor does (no registry, no other schema files). */
function editorValidator(published: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormatsModule.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(join(ROOT, PUBLISHED[published] as string), "utf8")));
}

function tempDir(contents: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "apm-editor-"));
  for (const [name, text] of Object.entries(contents)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("schemas for editors", () => {
  it("are exported at agent-platform-mock/schemas/scenario.json and …/fixtures.json, shipped, and built from src/schemas", () => {
    expect(pkg.exports["./schemas/scenario.json"]).toBe("./schemas/scenario.json");
    expect(pkg.exports["./schemas/fixtures.json"]).toBe("./schemas/fixtures.json");
    expect(pkg.files).toContain("schemas");
    expect(PUBLISHED).toEqual({ "schemas/scenario.json": "src/schemas/agent-server/scenario.json", "schemas/fixtures.json": "src/schemas/fixtures/fixture-file.json" });
    const root = mkdtempSync(join(tmpdir(), "apm-build-"));
    cpSync(join(ROOT, "src/schemas"), join(root, "src/schemas"), { recursive: true });
    copySchemas(root);
    for (const [to, from] of Object.entries(PUBLISHED)) expect(readFileSync(join(root, to), "utf8")).toBe(readFileSync(join(ROOT, from), "utf8"));
  });

  it("the scenario schema alone accepts every bundled scenario file (one scenario or a list) and a $schema key, and refuses a typo", () => {
    const validate = editorValidator("schemas/scenario.json");
    const docs = readDocuments([join(ROOT, "scenarios")], [], true);
    expect(docs.length).toBeGreaterThanOrEqual(9);
    for (const doc of docs) expect([doc.file, validate(doc.content)]).toEqual([doc.file, true]);
    expect(validate([{ name: "a" }, { $schema: "../node_modules/agent-platform-mock/schemas/scenario.json", name: "b", end: "success" }])).toBe(true);
    expect(validate({ name: "a", evnets: [] })).toBe(false);
    expect(validate([{ name: "a", end: "sucess" }])).toBe(false);
  });

  it("the fixture schema alone accepts every bundled fixture file and a $schema key, and refuses an unknown section", () => {
    const validate = editorValidator("schemas/fixtures.json");
    const docs = readDocuments([join(ROOT, "fixtures")], [], false);
    for (const doc of docs) expect([doc.file, validate(doc.content)]).toEqual([doc.file, true]);
    expect(validate({ $schema: "./node_modules/agent-platform-mock/schemas/fixtures.json", tenants: [] })).toBe(true);
    expect(validate({ deployment: [] })).toBe(false);
  });

  it("the mock loads scenario and fixture files that carry $schema (JSON and YAML with the yaml-language-server line)", async () => {
    const dir = tempDir({
      "one.json": JSON.stringify({ $schema: "../node_modules/agent-platform-mock/schemas/scenario.json", name: "one", match: { input: { n: 1 } }, events: [{ event: "values", data: { one: true } }] }),
      "list.yaml": "# yaml-language-server: $schema=../node_modules/agent-platform-mock/schemas/scenario.json\n- name: two\n  match: { input: { n: 2 } }\n  events: [{ event: values, data: { two: true } }]\n",
      "tenants.json": JSON.stringify({ $schema: "./node_modules/agent-platform-mock/schemas/fixtures.json", tenants: [{ id: "7c9e6679-7425-40de-944b-e07fc1f90ae7", name: "only", default: true }] }),
    });
    const app = createApp({ seed: 1, fixtures: [join(dir, "tenants.json")], scenarios: [join(dir, "one.json"), join(dir, "list.yaml")] });
    expect((await request(app).post("/runs/wait").send({ assistant_id: "agent", input: { n: 1 } }).expect(200)).body).toEqual({ one: true });
    expect((await request(app).post("/runs/wait").send({ assistant_id: "agent", input: { n: 2 } }).expect(200)).body).toEqual({ two: true });
    expect(mockOf(app).requests().map((r) => r.status)).toEqual([200, 200]);
  });
});

