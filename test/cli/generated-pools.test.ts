import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Bulk generation's faker pools are kept per seed on disk (src/control-plane/value-pools.ts). Each case
// runs fresh processes on the built package, as CLI starts and test workers are, and compares what a
// generated set serves byte for byte with a start that kept nothing.
const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);
const dirs: string[] = [];

/** A fresh process generating `count` deployments of seed 31 (on the integrations' repositories, or none): every page it serves. */
async function serve(cacheDir: string, count: number, repositories: boolean): Promise<string> {
  const fixtures = [...(repositories ? [join(ROOT, "fixtures/integrations.json")] : []), { generate: { deployments: { count } } }];
  const script = `
    const { startMockServer } = await import(${JSON.stringify(join(ROOT, "dist/index.js"))});
    const mock = await startMockServer({ seed: 31, publicUrl: "http://mock.test", fixtures: ${JSON.stringify(fixtures)} });
    const out = [];
    for (let offset = 0; offset < ${count}; offset += 100) out.push(await (await fetch("http://127.0.0.1:" + mock.port + "/v2/deployments?limit=100&offset=" + offset)).text());
    await mock.close();
    const { createRequire } = await import("node:module");
    process.stderr.write("faker files: " + Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("@faker-js")).length);
    console.log(JSON.stringify(out));`;
  const { stdout, stderr } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, env: { ...process.env, AGENT_PLATFORM_MOCK_CACHE_DIR: cacheDir } });
  fakerFiles = Number(/faker files: (\d+)/.exec(stderr)?.[1]);
  return stdout;
}
/** How many of faker's files the last `serve` loaded. */
let fakerFiles = NaN;

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "apm-value-pools-"));
  dirs.push(dir);
  return join(dir, "cache");
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("a generated set's faker pools", () => {
  // What a start that keeps nothing serves: the reference for every case.
  let reference: string;
  beforeAll(async () => {
    reference = await serve("off", 400, true);
  });

  it("are kept for the next process of the seed, which serves the same bytes without faker", async () => {
    expect(JSON.parse(reference)).toHaveLength(4);
    const dir = cacheDir();
    expect(await serve(dir, 400, true)).toBe(reference);
    expect(fakerFiles).toBeGreaterThan(0);
    expect(await serve(dir, 400, true)).toBe(reference);
    expect(fakerFiles).toBe(0);
  });

  it("kept by a smaller set, or one on other repositories, give the same values: faker draws what they lack", async () => {
    const fewer = cacheDir();
    await serve(fewer, 2, true);
    expect(await serve(fewer, 400, true)).toBe(reference);
    const otherRepositories = cacheDir();
    await serve(otherRepositories, 400, false);
    expect(await serve(otherRepositories, 400, true)).toBe(reference);
  });
});
