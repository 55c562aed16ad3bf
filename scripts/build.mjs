// `npm run build`: dist/ from scratch, one step after another (each is a script of its own).
//   1. tsc: src/ → dist/modules/ (JavaScript, declarations, source maps).
//   2. The files shipped beside the code: schemas (dist/schemas, and the package's schemas/ folder)
//      and the inspector's page (dist/admin/inspector).
//   3. What start-up would otherwise compute: ajv's standalone validators (run the built modules).
//   4. The entry points bundled (dist/index.js, cli.js, vitest.js, vitest-setup.js, chunks/).
//   5. dist/.built, which scripts/build-if-stale.mjs compares with the sources: a build that failed
//      half-way leaves none.
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const require = createRequire(import.meta.url);

function node(...args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

rmSync(DIST, { recursive: true, force: true });
// typescript's `exports` do not name bin/tsc: it is found beside its package.json.
node(join(dirname(require.resolve("typescript/package.json")), "bin/tsc"), "-p", "tsconfig.build.json");
node("scripts/copy-schemas.mjs");
cpSync(join(ROOT, "src/admin/inspector"), join(DIST, "admin/inspector"), { recursive: true });
node("scripts/compile-validators.mjs");
node("scripts/bundle.mjs");
writeFileSync(join(DIST, ".built"), "");
