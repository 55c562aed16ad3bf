import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Installs the package as a new user would: `npm pack`, then `npm install <tarball>` into a fresh
// project outside this repository (so nothing resolves from our own node_modules), then runs the
// README's Install examples there. `npm test` builds dist/ before vitest runs, so the pack's
// `prepack` finds it fresh and reuses it; the scripts that make fresh clones and git installs build
// are checked below.
const ROOT = join(import.meta.dirname, "../..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const sh = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; scripts: Record<string, string>; dependencies: Record<string, string> };

/** The code block after `<!-- example:NAME -->` in the README. */
function readmeExample(name: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const match = new RegExp(`<!-- example:${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README has no example:${name}`);
  return match[1] as string;
}

let work: string;
let consumer: string;
let files: string[];
let packOutput: string;
let packedManifest: { scripts?: unknown; bin?: unknown };
let installWarnings: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "apm-install-"));
  consumer = join(work, "consumer");
  // `npm pack` builds a stale dist/ (prepack), which would delete it under the other CLI tests: refuse instead.
  await sh(process.execPath, ["scripts/build-if-stale.mjs", "--check"], { cwd: ROOT });
  const packed = await sh("npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT });
  packOutput = packed.stderr;
  const info = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  files = info[0]!.files.map((f) => f.path);
  const tarball = join(work, info[0]!.filename);
  packedManifest = JSON.parse((await sh("tar", ["-xOzf", tarball, "package/package.json"])).stdout) as typeof packedManifest;
  await sh("mkdir", ["-p", consumer]);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
  const install = ["install", "--no-audit", "--no-fund", "--no-save", tarball];
  // Offline from the npm cache when it holds every package's metadata; else let npm fetch what it lacks.
  const installed = await sh("npm", [...install, "--offline"], { cwd: consumer }).catch(() => sh("npm", [...install, "--prefer-offline"], { cwd: consumer }));
  installWarnings = `${installed.stdout}\n${installed.stderr}`.split("\n").filter((line) => /^npm (warn|WARN)/.test(line));
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("installed from the packed tarball", () => {
  it("ships the build, the bundled data and the schemas, and no sources or tests", () => {
    expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/modules/index.d.ts", "dist/cli.js", "dist/schemas/agent-server/scenario.json", "package.json", "README.md"]));
    expect(files.some((f) => f.startsWith("fixtures/")) && files.some((f) => f.startsWith("scenarios/"))).toBe(true);
    expect(files.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    // A fresh clone (no dist/) builds on `npm ci` and on git installs, which run `prepare`, and on
    // `npm pack`; each reuses a build that is fresh.
    expect(pkg.scripts.prepare).toBe("node scripts/build-if-stale.mjs");
    expect(pkg.scripts.prepack).toBe("node scripts/build-if-stale.mjs && node scripts/pack-manifest.mjs strip");
    expect(packOutput).toContain("dist/ is up to date; skipping the build");
    // The public .d.ts import express's types: they must come with the package.
    expect(Object.keys(pkg.dependencies)).toContain("@types/express");
  });

  it("installs without a warning of ours: the packed package.json carries no scripts, and the repository's is back as it was", () => {
    expect(packedManifest.scripts).toBeUndefined();
    expect(packedManifest.bin).toEqual({ "agent-platform-mock": "dist/cli.js" });
    expect(installWarnings.filter((line) => /agent-platform-mock|prepare|install-scripts/.test(line))).toEqual([]);
    expect((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as typeof pkg).scripts).toEqual(pkg.scripts);
  });

  it("runs the README's ES module example", async () => {
    writeFileSync(join(consumer, "example.mjs"), readmeExample("mjs"));
    const { stdout } = await sh(process.execPath, ["example.mjs"], { cwd: consumer });
    expect(stdout.trim()).toBe("200");
  });

  it("runs the README's CommonJS example (require of the ESM package)", async () => {
    writeFileSync(join(consumer, "example.cjs"), readmeExample("cjs"));
    const { stdout } = await sh(process.execPath, ["example.cjs"], { cwd: consumer });
    expect(stdout.trim()).toBe("200");
  });

  it("type-checks the README's TypeScript example strictly under node16 (skipLibCheck off) and bundler", async () => {
    writeFileSync(join(consumer, "example.mts"), readmeExample("ts"));
    const base = { strict: true, noEmit: true, target: "ES2022", lib: ["ES2022"], types: [] };
    // The package's own .d.ts (and every type they import) are checked once, under node16, the
    // stricter resolution; bundler resolution is checked for the example's imports and types.
    const configs = {
      bundler: { ...base, skipLibCheck: true, module: "ESNext", moduleResolution: "Bundler" },
      node16: { ...base, skipLibCheck: false, module: "Node16", moduleResolution: "Node16" },
    };
    const results = await Promise.all(
      Object.entries(configs).map(async ([name, compilerOptions]) => {
        writeFileSync(join(consumer, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions, files: ["example.mts"] }));
        const r = await sh(process.execPath, [TSC, "-p", `tsconfig.${name}.json`], { cwd: consumer }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
        return [name, r.stdout.trim()] as const;
      }),
    );
    expect(Object.fromEntries(results)).toEqual({ bundler: "", node16: "" });
  }, 120_000);

  it("runs the installed bin: --version is the package's own", async () => {
    const { stdout } = await sh(join(consumer, "node_modules/.bin/agent-platform-mock"), ["--version"], { cwd: consumer });
    expect(stdout.trim()).toBe(pkg.version);
  });
});
