// `npm run build`: dist/ from scratch, one step after another (each is a script of its own).
//   1. tsc: src/ → dist/modules/ (JavaScript, declarations, source maps).
//   2. The files shipped beside the code: schemas (dist/schemas, and the package's schemas/ folder)
//      and the inspector's page (dist/admin/inspector).
//   3. What start-up would otherwise compute: ajv's standalone validators and the faker generators
//      templates may call (both run the built modules); and dist/build-id, a digest of the built code
//      and schemas.
//   4. The entry points bundled (dist/index.js, cli.js, vitest.js, vitest-setup.js, chunks/).
//   5. dist/.built, which scripts/build-if-stale.mjs compares with the sources: a build that failed
//      half-way leaves none.
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const require = createRequire(import.meta.url);

function node(...args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/**
 * A digest of the built code and schemas (dist/build-id): what the mock keeps on disk between
 * processes from its own computations is filed under it (src/core/build-id.ts).
 */
function buildId() {
  const hash = createHash("sha256");
  for (const folder of ["modules", "schemas"]) {
    const files = readdirSync(join(DIST, folder), { recursive: true }).filter((f) => /\.(js|json)$/.test(f)).sort();
    for (const file of files) hash.update(`${folder}/${file}\0`).update(readFileSync(join(DIST, folder, file))).update("\0");
  }
  return hash.digest("hex");
}

rmSync(DIST, { recursive: true, force: true });
node(require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json");
node("scripts/copy-schemas.mjs");
cpSync(join(ROOT, "src/admin/inspector"), join(DIST, "admin/inspector"), { recursive: true });
node("scripts/compile-validators.mjs");
node("scripts/list-faker-methods.mjs");
writeFileSync(join(DIST, "build-id"), buildId());
node("scripts/bundle.mjs");
writeFileSync(join(DIST, ".built"), "");
