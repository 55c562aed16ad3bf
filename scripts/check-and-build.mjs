#!/usr/bin/env node
// `npm test`'s first step: the type-check (src, tests, bench, scripts) and the build of dist/ (which the
// CLI tests spawn) run side by side, since each tsc is single-threaded and CI machines have two cores.
// The build is skipped when dist/ is up to date (scripts/build-if-stale.mjs): `npm ci` has just built it.
import { spawn } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const tsc = new URL("../node_modules/typescript/bin/tsc", import.meta.url).pathname;

function run(label, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit" });
    child.on("exit", (code, signal) => {
      if (code !== 0) process.stderr.write(`agent-platform-mock: ${label} failed (${signal ?? `exit ${code}`})\n`);
      resolve(code ?? 1);
    });
  });
}

const codes = await Promise.all([
  run("type-check", [tsc, "--noEmit", "-p", "tsconfig.json"]),
  run("build", ["scripts/build-if-stale.mjs"]),
]);
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
