import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needChromium } from "../support/chromium.js";

/**
 * The Jest and Playwright recipes of docs/runners.md, run by a real Jest and a real Playwright: each
 * recipe's files are read from the doc (so the doc cannot drift from what runs), written into a fresh
 * project outside this repository, and run there with this repository's `jest` / `playwright test`.
 * The project gets the package as an install would give it — `node_modules/agent-platform-mock` (a
 * link to this repository, whose dist/ `npm test` has just built) and a `.bin/agent-platform-mock` for
 * `npx` — rather than packing a second tarball (test/cli/install.test.ts covers the packed install).
 */
const ROOT = join(import.meta.dirname, "../..");
const JEST = join(ROOT, "node_modules/jest/bin/jest.js");
const PLAYWRIGHT = join(ROOT, "node_modules/@playwright/test/cli.js");

/**
 * The files of the recipe after `<!-- recipe:NAME -->` in docs/runners.md: one code block in which each
 * file starts with a `// path` line.
 */
function recipeFiles(name: string): Record<string, string> {
  const doc = readFileSync(join(ROOT, "docs/runners.md"), "utf8");
  const block = new RegExp(`<!-- recipe:${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(doc)?.[1];
  if (!block) throw new Error(`docs/runners.md has no recipe:${name}`);
  const files: Record<string, string> = {};
  for (const part of block.split(/^(?=\/\/ [\w./-]+\.[cm]?[jt]s$)/m)) {
    const path = /^\/\/ ([\w./-]+)$/m.exec(part)?.[1];
    if (!path) throw new Error(`recipe:${name}: text before the first "// file" line: ${part.slice(0, 60)}`);
    files[path] = `${part.trim()}\n`;
  }
  return files;
}

/** A project in `dir` with the package installed (linked) and `files` written into it. */
function project(dir: string, files: Record<string, string>, links: Record<string, string> = {}): string {
  mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
  for (const [name, target] of Object.entries({ "agent-platform-mock": ROOT, ...links })) {
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
    symlinkSync(target, join(dir, "node_modules", name), "dir");
  }
  // What npm's bin link does, as a script: dist/cli.js is not executable in the repository.
  writeFileSync(join(dir, "node_modules/.bin/agent-platform-mock"), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "dist/cli.js")}" "$@"\n`, { mode: 0o755 });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Runs a command to its end; its exit code and its stdout and stderr together (as a terminal shows them). */
function run(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** A port nothing listens on now (the Playwright recipe needs fixed ports, known before the run). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "apm-runners-"));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("docs/runners.md recipes, run by the real runners", () => {
  it("Jest: the globalSetup starts the mock with npx, both tests pass against it, the teardown stops it", async () => {
    const files = recipeFiles("jest");
    expect(Object.keys(files)).toEqual(["jest.config.cjs", "test/mock-setup.cjs", "test/mock-teardown.cjs", "test/feedback.test.cjs"]);
    const dir = project(join(work, "jest"), { "package.json": JSON.stringify({ name: "jest-consumer", private: true }), ...files });

    const { code, output } = await run([JEST, "--ci", "--verbose"], dir);

    expect(output).toMatch(/✓ records the thumbs-up the front end posts/);
    expect(output).toMatch(/✓ starts from a reset mock/);
    expect(output).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(code, output).toBe(0);
  });

  it("Playwright: both webServers start, Chromium clicks 👍 in the app, the feedback is in the mock; nothing is left on the port", async (ctx) => {
    const chromiumPath = needChromium(ctx);
    const files = recipeFiles("playwright");
    expect(Object.keys(files)).toEqual(["playwright.config.ts", "tests/feedback.spec.ts"]);
    const dir = project(
      join(work, "playwright"),
      { "package.json": JSON.stringify({ name: "playwright-consumer", private: true, scripts: { dev: "node app.mjs" } }), ...files },
      { "@playwright/test": join(ROOT, "node_modules/@playwright/test") },
    );
    copyFileSync(join(import.meta.dirname, "feedback-app.mjs"), join(dir, "app.mjs"));
    const [mockPort, appPort] = [await freePort(), await freePort()];

    // CI=1: a server already on either port fails the run instead of being reused.
    const env = { CI: "1", MOCK_PORT: String(mockPort), APP_PORT: String(appPort), CHROMIUM_PATH: chromiumPath, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" };
    const { code, output } = await run([PLAYWRIGHT, "test", "--reporter=list"], dir, env);

    expect(output).toMatch(/✓ .*tests[/\\]feedback\.spec\.ts:\d+:\d+ › thumbs up is recorded/);
    expect(output).toMatch(/1 passed/);
    expect(code, output).toBe(0);
    // Playwright stopped the npx process group, the mock included.
    expect(await fetch(`http://127.0.0.1:${mockPort}/_mock/health`).then(() => "answering", () => "closed")).toBe("closed");
  });
});
