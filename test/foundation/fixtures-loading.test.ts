import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp, LoadError, type MockOptions } from "../../src/index.js";
import { checkFixtureFiles } from "../../src/fixture-check.js";

function tempFile(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "apm-fixtures-"));
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

function loadError(fixtures: MockOptions["fixtures"]): LoadError {
  try {
    createApp({ seed: 1, fixtures });
  } catch (err) {
    expect(err).toBeInstanceOf(LoadError);
    return err as LoadError;
  }
  throw new Error("expected the fixtures to be refused");
}

describe("fixture files are refused at load with file, JSON pointer and reason", () => {
  it("a file that is not JSON names the line and column", () => {
    const file = tempFile("broken.json", '{\n  "tenants": [\n    { "id": 1,, }\n  ]\n}\n');
    const err = loadError([file]);
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatchObject({ file, pointer: "" });
    expect(err.problems[0]?.reason).toMatch(/^invalid JSON at line 3, column \d+/);
    expect(err.message).toContain(`${file}#: invalid JSON at line 3`);
  });

  it("every problem of every file at once: a structural one does not hide the record checks of other sections and files", () => {
    const first = tempFile("first.json", JSON.stringify({ tenants: [{ id: "x" }], oauth_providers: [{ name: "A", uses_pkce: "yes" }] }));
    const second = tempFile("second.json", JSON.stringify({ deployment: [], mcp_servers: [{ slug: "Bad Slug" }] }));
    const err = loadError([first, second]);
    expect(err.problems.map((p) => [p.file, p.pointer])).toEqual([
      [first, "/tenants/0/id"],
      [second, "/deployment"],
      [first, "/oauth_providers/0/uses_pkce"],
      [second, "/mcp_servers/0/slug"],
    ]);
  });

  it("`validate`'s check (the seed steps without the app) finds what a starting mock refuses, in the same order", () => {
    const first = tempFile("first.json", JSON.stringify({ tenants: [{ id: "x" }], oauth_providers: [{ name: "A", uses_pkce: "yes" }], graphs: [{ graph_id: "g" }, { graph_id: "g" }] }));
    const second = tempFile("second.json", JSON.stringify({ deployments: [{ name: "a", source: "gitlab" }, { name: "B" }], mcp_servers: [{ slug: "Bad Slug" }] }));
    const problems = loadError([first, second]).problems;
    expect(problems.length).toBeGreaterThanOrEqual(5);
    expect(checkFixtureFiles([first, second]).problems).toEqual(problems);
  });

  it("an unknown section is named with its pointer", () => {
    const file = tempFile("typo.json", JSON.stringify({ deployment: [] }));
    const err = loadError([file]);
    expect(err.problems).toEqual([{ file, pointer: "/deployment", reason: 'unknown property (not in the schema; did you mean "deployments"?)' }]);
  });

  it("a wrongly typed value points at the value", () => {
    const file = tempFile("tenants.json", JSON.stringify({ tenants: [{ id: "7c9e6679-7425-40de-944b-e07fc1f90ae7" }, { id: "not-a-uuid" }] }));
    const err = loadError([file]);
    expect(err.problems).toEqual([{ file, pointer: "/tenants/1/id", reason: 'must match format "uuid"; got "not-a-uuid"' }]);
  });

  it("a missing file is a problem too, not a crash", () => {
    const err = loadError(["/no/such/fixtures.json"]);
    expect(err.problems).toEqual([{ file: "/no/such/fixtures.json", pointer: "", reason: "no such file or folder" }]);
  });

  it("every problem of every file is reported at once", () => {
    const a = tempFile("a.json", JSON.stringify({ nope: 1 }));
    const b = tempFile("b.json", "[");
    const err = loadError([a, b]);
    expect(err.problems.map((p) => p.file)).toEqual([b, a]);
  });

  it("fixtures can be given as objects, and `false` starts empty", async () => {
    const inline = createApp({ seed: 1, fixtures: { oauth_providers: [{ provider_id: "only-one", name: "Only One" }] } });
    const listed = await request(inline).get("/v2/auth/providers").expect(200);
    expect((listed.body as { provider_id: string; name: string }[]).map((p) => [p.provider_id, p.name])).toEqual([["only-one", "Only One"]]);
    const empty = createApp({ seed: 1, fixtures: false });
    await request(empty).get("/v2/auth/providers").expect(200, []);
    await request(empty).get("/v2/deployments").expect(200, { resources: [], offset: 0 });
  });
});

describe("every mock of a process reads its fixture files anew", () => {
  it("an edited file is what the next mock serves, an unchanged one serves the same, and no mock sees another's writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-fixtures-"));
    const bundled = fileURLToPath(new URL("../../fixtures", import.meta.url));
    for (const name of readdirSync(bundled)) copyFileSync(join(bundled, name), join(dir, name));
    const list = async (app: ReturnType<typeof createApp>) => {
      const deployments = (await request(app).get("/v2/deployments?limit=100").expect(200)).body as { resources: { id: string; name: string }[] };
      const providers = (await request(app).get("/v2/auth/providers").expect(200)).body as { provider_id: string; name: string }[];
      return { deployments: deployments.resources.map((d) => [d.id, d.name]), providers: providers.map((p) => [p.provider_id, p.name]) };
    };
    const first = createApp({ seed: 7, fixtures: [dir] });
    const before = await list(first);
    await request(first).delete(`/v2/deployments/${before.deployments[0]?.[0]}`).expect(204);

    const file = join(dir, "deployments.json");
    const content = JSON.parse(readFileSync(file, "utf8")) as { deployments: { name: string }[] };
    const edited = content.deployments[0] as { name: string };
    edited.name = "renamed-after-the-first-mock";
    writeFileSync(file, JSON.stringify(content));
    const providersFile = join(dir, "oauth-providers.json");
    writeFileSync(providersFile, readFileSync(providersFile, "utf8").replace('"name": "GitHub"', '"name": "GitHub Renamed"'));

    const second = await list(createApp({ seed: 7, fixtures: [dir] }));
    expect(second.deployments).toContainEqual([expect.any(String), "renamed-after-the-first-mock"]);
    expect(second.providers).toContainEqual(["github-local-dev", "GitHub Renamed"]);
    expect(second.deployments).toHaveLength(before.deployments.length);
    expect(await list(createApp({ seed: 7, fixtures: [dir] }))).toEqual(second);
  });
});
