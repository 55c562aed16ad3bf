import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callFaker } from "../../src/agent-server/faker-calls.js";
import { loadFaker } from "../../src/core/lazy-faker.js";
import { installedPackage } from "../../src/core/lazy-modules.js";

// The build lists the faker generators scenario templates may call (dist/faker-methods.json), so that
// checking a scenario's `{{faker.…}}` templates does not load faker. dist/ is what is tested.
const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "dist/cli.js");
const list = JSON.parse(readFileSync(join(ROOT, "dist/faker-methods.json"), "utf8")) as { faker: string; methods: string[] };

/** Runs the CLI with a preload that prints, as the process exits, how many of faker's files were loaded. */
function run(args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "apm-faker-"));
  const probe = join(dir, "probe.cjs");
  writeFileSync(probe, `process.on("exit", () => process.stderr.write("faker files: " + Object.keys(require.cache).filter((f) => f.includes("@faker-js")).length + "\\n"));`);
  return spawnSync(process.execPath, ["--require", probe, BIN, ...args], { encoding: "utf8", timeout: 15_000 });
}

describe("faker generators listed at build time (dist/faker-methods.json)", () => {
  it("are the installed faker's, and each is one a template may call", () => {
    expect(list.faker).toBe(installedPackage("@faker-js/faker").manifest.version);
    expect(list.methods.length).toBeGreaterThan(150);
    expect(list.methods).toEqual(expect.arrayContaining(["person.firstName", "string.uuid", "lorem.sentence"]));
    const faker = loadFaker();
    const warn = console.warn;
    console.warn = () => {}; // the deprecated generators warn when called
    try {
      for (const name of list.methods) {
        const [module, method] = name.split(".") as [string, string];
        expect(() => callFaker(faker, module, method), name).not.toThrow();
      }
    } finally {
      console.warn = warn;
    }
    // Generators that need arguments are not listed.
    expect(list.methods).not.toContain("helpers.arrayElement");
    expect(list.methods).not.toContain("number.bigInt");
  });

  it("let scenarios with faker templates be checked without loading faker", () => {
    const scenarios = join(ROOT, "scenarios");
    expect(readdirSync(scenarios).some((name) => readFileSync(join(scenarios, name), "utf8").includes("{{faker."))).toBe(true);
    const result = run(["validate", scenarios]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain("faker files: 0\n");
  });

  it("leave a name not on the list to faker itself, which says what is wrong and what was meant", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-faker-"));
    const file = join(dir, "typo.json");
    writeFileSync(file, JSON.stringify({ name: "typo", turns: [{ events: [{ event: "values", data: { who: "{{faker.person.fistName}}" } }] }] }));
    const result = run(["validate", file]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${file}#/turns/0/events/0/data/who: template {{faker.person.fistName}}: not a faker method that takes no arguments (faker.person.fistName does not exist) (did you mean faker.person.firstName?)`);
    expect(result.stderr).toMatch(/faker files: [1-9]/);
  });
});
