#!/usr/bin/env node
// Runs `npm run build` only when dist/ is missing or older than what it is built from, so that
// `npm ci` (which runs `prepare`) and `npm start` do not pay for tsc when nothing changed.
// `npm pack` always builds (prepack calls `npm run build` directly); `npm test` builds through this script.
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

const sources = ["src", "scripts/build.mjs", "scripts/copy-schemas.mjs", "scripts/collect-schemas.mjs", "scripts/compile-validators.mjs", "scripts/parse-bundled-yaml.mjs", "scripts/bundle.mjs", "tsconfig.json", "tsconfig.build.json", "package.json"].map((p) => join(root, p)).filter(existsSync);
const upToDate = existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...sources.map(newest));
if (upToDate) {
  process.stderr.write("agent-platform-mock: dist/ is up to date; skipping the build\n");
} else {
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
    : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  process.exit(result.status ?? 1);
}
