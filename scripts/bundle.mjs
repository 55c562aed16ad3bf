// Build step (last before the stamp): bundles the package's entry points — dist/index.js, dist/cli.js,
// dist/vitest.js and dist/vitest-setup.js — from tsc's output in dist/modules/, with the code they
// share in dist/chunks/. Importing the bundle costs about half of what loading ~180 modules one by one
// (the mock's and express's) does. Files shipped beside the code are found from the code tree's root
// (src/core/code-root.ts), which a bundle keeps.
//
// express and yargs are bundled with the packages they load (~80 small files), as they are published.
// yargs looks for its locale files beside its own module, which a bundle does not have: the CLI sets its
// locale to English (src/cli/yargs-cli.ts), whose messages are yargs's built-in strings. Left as
// imports: js-yaml (only the recorder imports it statically), vitest (a peer dependency), iconv-lite
// (below) and Node's built-ins. Packages loaded on first use (src/core/lazy-modules.ts, lazy-faker.ts)
// are required at run time and stay out of the bundle.
//
// iconv-lite, which body-parser and raw-body load for bodies in other charsets, carries half a megabyte
// of code pages that V8 would parse with the bundle at every start: it is required from node_modules
// instead (a dependency of the package's own so that it is found there), where it loads them on first use.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const ENTRIES = ["index", "cli", "vitest", "vitest-setup"];
const EXTERNAL = new Set(["js-yaml", "vitest", "iconv-lite"]);

/**
 * yargs's help is laid out by cliui and wrap-ansi, which measure every word with string-width; the
 * package builds an Intl.Segmenter and an emoji regex as it loads (~100 ms), and wrap-ansi walks its
 * output a character at a time for colour codes the help does not have (a third of `--help`'s cost
 * over bare node). Every importer gets src/cli/text-width.ts and text-wrap.ts instead, which handle
 * printable ASCII themselves and load the packages only for other text: modules of the mock's own in
 * the packages' place, not a rewrite of their code.
 */
const ALIAS = {
  "string-width": join(DIST, "modules", "cli", "text-width.js"),
  "wrap-ansi": join(DIST, "modules", "cli", "text-wrap.js"),
};

/**
 * JSON files the bundled packages require (mime-db's table of types, iconv-lite's code pages: ~0.5 MB)
 * go in as JSON.parse of a string, as node's require reads them, instead of object literals: V8 scans
 * a string literal far faster than it parses a literal of that size, and a JSON key `__proto__` stays
 * a key.
 */
const jsonAsText = {
  name: "json-as-text",
  load(id) {
    if (!id.endsWith(".json")) return null;
    const value = JSON.parse(readFileSync(id, "utf8"));
    return { code: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(value))});\n`, moduleType: "js" };
  },
};

export async function bundle() {
  rmSync(join(DIST, "chunks"), { recursive: true, force: true });
  await build({
    input: Object.fromEntries(ENTRIES.map((name) => [name, join(DIST, "modules", `${name}.js`)])),
    platform: "node",
    resolve: { alias: ALIAS },
    plugins: [jsonAsText],
    external: (id) => EXTERNAL.has(id.split("/")[0]),
    logLevel: "warn",
    output: {
      dir: DIST,
      format: "esm",
      entryFileNames: "[name].js",
      chunkFileNames: "chunks/[name]-[hash].js",
      sourcemap: true,
      // V8 keeps each module's source for as long as the process runs, as one-byte text only when all
      // of it is Latin-1: one "—" in a comment made the server chunk two bytes a character. Escaped
      // non-ASCII text and no doc comments (tsc's output is beside the bundles, with source maps).
      charset: "ascii",
      comments: { legal: true, annotation: false, jsdoc: false },
    },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await bundle();
