#!/usr/bin/env node
// Runs `npm run build` only when dist/ is missing or older than what it is built from, so that
// `npm pack` (prepack), `npm test` and `npm start` reuse what `npm ci` (prepare) has just built.
// With --check it builds nothing and exits 1 when dist/ is stale (a test that packs must not rebuild
// dist/ under the other tests that run it).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
// Written by the last step of `npm run build`: a build that failed half-way leaves no fresh stamp.
const stamp = join(root, "dist", ".built");

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const sources = ["src", "scripts/build.mjs", "scripts/copy-schemas.mjs", "scripts/compile-validators.mjs", "scripts/list-faker-methods.mjs", "scripts/bundle.mjs", "tsconfig.json", "tsconfig.build.json", "package.json"].map((p) => join(root, p)).filter(existsSync);
const upToDate = existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...sources.map(newest));
if (process.argv.includes("--check")) {
  if (!upToDate) process.stderr.write("agent-platform-mock: dist/ is older than its sources (npm run build)\n");
  process.exit(upToDate ? 0 : 1);
} else if (upToDate) {
  process.stderr.write("agent-platform-mock: dist/ is up to date; skipping the build\n");
} else {
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
    : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  process.exit(result.status ?? 1);
}
