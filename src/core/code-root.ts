import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The top of the code tree this module runs from: `src/` under the test suite, `dist/` when built.
 * Files shipped beside the code (schemas, prebuilt validators, the inspector's page) and the
 * package's own folders are found from here rather than from each module's own URL, because the built
 * package runs as a bundle (dist/*.js and dist/chunks/, scripts/bundle.mjs) whose modules no longer sit
 * in the folders their sources did. The nearest ancestor named `src` or `dist` is the one: nothing
 * inside either tree is named so.
 */
export const CODE_ROOT = findCodeRoot(dirname(fileURLToPath(import.meta.url)));

function findCodeRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const name = basename(dir);
    if (name === "src" || name === "dist") return dir;
    if (dirname(dir) === dir) throw new Error(`agent-platform-mock: no src/ or dist/ folder above ${start}`);
  }
}

/** A path under the code tree (`codePath("schemas")` is src/schemas or dist/schemas). */
export function codePath(...parts: string[]): string {
  return join(CODE_ROOT, ...parts);
}

/** A path in the package's own folder (package.json, fixtures/, scenarios/). */
export function packagePath(...parts: string[]): string {
  return join(CODE_ROOT, "..", ...parts);
}
