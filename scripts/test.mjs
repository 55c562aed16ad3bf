#!/usr/bin/env node
// `npm test`: the type-check (src, tests, bench, scripts) runs beside the build of dist/ (which the CLI
// tests spawn) and then beside vitest. tsc is single-threaded and vitest leaves part of a second core
// idle while its spawned processes start, so side by side the run is ~30 s shorter on two cores than
// one after the other. The build is skipped when dist/ is up to date (`npm ci` has just built it).
// Arguments go to vitest. tsc's report is printed after vitest's, so the two do not interleave.
import { spawn } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const tsc = new URL("../node_modules/typescript/bin/tsc", import.meta.url).pathname;
const vitest = new URL("../node_modules/vitest/vitest.mjs", import.meta.url).pathname;

function run(label, args, stdio) {
  const child = spawn(process.execPath, args, { cwd: root, stdio });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      if (code !== 0) output += `agent-platform-mock: ${label} failed (${signal ?? `exit ${code}`})\n`;
      resolve({ code: code ?? 1, output });
    });
  });
}

const typeCheck = run("type-check", [tsc, "--noEmit", "-p", "tsconfig.json"], ["ignore", "pipe", "inherit"]);
const build = await run("build", ["scripts/build-if-stale.mjs"], "inherit");
const tests = build.code === 0 ? await run("vitest", [vitest, "run", ...process.argv.slice(2)], "inherit") : build;
const checked = await typeCheck;
process.stdout.write(checked.output);
process.stderr.write(tests.output);
if (checked.code === 0) process.stderr.write("agent-platform-mock: type-check passed\n");
process.exit(checked.code !== 0 || tests.code !== 0 ? 1 : 0);
