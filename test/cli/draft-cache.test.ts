import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// Seeded fixture drafts are kept on disk between processes (src/store/draft-cache.ts). Each case runs
// fresh processes, as test workers and CLI starts are, and compares what they serve byte for byte.
const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);
const dirs: string[] = [];

/** A fresh node process that starts a seeded mock with the bundled fixtures and prints what it serves. */
async function serve(cacheDir: string): Promise<string> {
  const script = `
    const { startMockServer } = await import(${JSON.stringify(join(ROOT, "dist/index.js"))});
    const mock = await startMockServer({ seed: 7, publicUrl: "http://mock.test" });
    const out = [];
    // The answers name the public URL, not the port this process happened to get.
    for (const path of ["/v2/deployments?limit=100", "/v2/auth/providers", "/v1/integrations/github/install"]) out.push(await (await fetch("http://127.0.0.1:" + mock.port + path)).text());
    await mock.close();
    console.log(JSON.stringify(out));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, env: { ...process.env, AGENT_PLATFORM_MOCK_CACHE_DIR: cacheDir } });
  return stdout;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "apm-draft-cache-"));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the draft cache", () => {
  // One test: each `serve` is a fresh process with a cold import, and the cases share their reference answers.
  it("is written by a seeded start and read by the next process, which serves the same bytes; off or unwritable, the same bytes", async () => {
    const dir = join(tempDir(), "cache");
    const cold = await serve(dir);
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(10);
    expect(files.every((f) => /^[0-9a-f]{40}\.json$/.test(f))).toBe(true);
    const [deployments, providers, integrations] = (JSON.parse(cold) as string[]).map((text) => JSON.parse(text));
    expect(deployments.resources.length).toBeGreaterThan(5);
    for (const answer of [providers, integrations]) expect(answer).not.toHaveProperty("detail");
    // Every draft came from disk: the next process writes none again.
    const written = new Map(files.map((f) => [f, statSync(join(dir, f)).mtimeMs]));
    expect(await serve(dir)).toBe(cold);
    expect(readdirSync(dir).sort()).toEqual([...files].sort());
    for (const [file, mtime] of written) expect(statSync(join(dir, file)).mtimeMs, file).toBe(mtime);
    // An entry that cannot be read is a miss: generated again (and written again), same answers.
    for (const file of files) writeFileSync(join(dir, file), "{not json");
    expect(await serve(dir)).toBe(cold);
    for (const file of files) expect(() => JSON.parse(readFileSync(join(dir, file), "utf8")), file).not.toThrow();
    // Turned off, or with a directory that cannot be written, the answers are the same.
    expect(await serve("off")).toBe(cold);
    const blocked = join(tempDir(), "a-file");
    writeFileSync(blocked, "not a directory");
    expect(await serve(blocked)).toBe(cold);
    expect(readFileSync(blocked, "utf8")).toBe("not a directory");
  });
});
