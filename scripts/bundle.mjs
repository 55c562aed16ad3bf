// Build step (last before the stamp): bundles the package's entry points — dist/index.js, dist/cli.js,
// dist/vitest.js and dist/vitest-setup.js — from tsc's output in dist/modules/, with the code they
// share in dist/chunks/. Loading ~180 modules one by one (the mock's and express's) was half of the
// import time and of the CLI's time to its first answer (issue 15). Files shipped beside the code are
// found from the code tree's root (src/core/code-root.ts), which a bundle keeps.
//
// express and yargs are bundled with the packages they load (~80 small files). yargs looks for its
// locale files beside its own module, which a bundle does not have: the CLI sets its locale to English
// (src/cli/yargs-cli.ts), whose messages are yargs's built-in strings. Left as imports: yaml (only the
// recorder imports it statically), vitest (a peer dependency), iconv-lite (below) and Node's built-ins.
// Packages loaded on first use (src/core/lazy-modules.ts, lazy-faker.ts) are required at run time and
// stay out of the bundle.
//
// iconv-lite, which body-parser and raw-body load for bodies in other charsets, is half a megabyte of
// code pages that V8 would compile with the bundle at every start (~5 ms of the CLI's first answer)
// for bodies the mock hardly ever reads: it is required from node_modules instead, a dependency of
// the package's own so that it is found there (~5 small files; its code pages load on first use).
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const ENTRIES = ["index", "cli", "vitest", "vitest-setup"];
const EXTERNAL = new Set(["yaml", "vitest", "iconv-lite"]);

/**
 * yargs's help is laid out by cliui and wrap-ansi, which measure every word and every character with
 * string-width 7, whose copies have no shortcut for plain ASCII text: each measure walked the text
 * with an Intl.Segmenter and an emoji regex: three fifths of what `--help` cost over starting node.
 * Every importer gets the one string-width yargs itself uses (8.x: the same function, answering
 * plain ASCII text at once), so help, all ASCII, makes no segmenter (test/cli/cli.test.ts).
 */
const ALIAS = { "string-width": createRequire(import.meta.url).resolve("string-width") };

/**
 * string-width (yargs's help layout; one copy, ALIAS above) builds an Intl.Segmenter when it is loaded,
 * and holds a `/^\p{RGI_Emoji}$/v` literal, which V8 checks against ICU's emoji data as
 * it parses the file: together two thirds of the CLI's own start-up, for widths that only `--help`
 * and error messages measure. Both are made on first use instead. Each rewrite must find what it
 * rewrites, so a string-width release that changes these lines fails the build rather than skipping it.
 */
const lazyStringWidth = {
  name: "lazy-string-width",
  transform(code, id) {
    if (!/[\\/]node_modules[\\/](.+[\\/])?string-width[\\/]index\.js$/.test(id)) return null;
    const rewrite = (text, made, made2, used, use2) => {
      if (!made.test(text) || !used.test(text)) throw new Error(`bundle: ${id} no longer reads as expected (${made.source}); update lazyStringWidth`);
      return text.replace(made, made2).replace(used, use2);
    };
    let out = rewrite(code, /^const segmenter = new Intl\.Segmenter\(\);$/m, "let segmenter;", /\bsegmenter\.segment\(/g, "(segmenter ??= new Intl.Segmenter()).segment(");
    if (/\brgiEmojiRegex\b/.test(out)) {
      out = rewrite(out, /^const rgiEmojiRegex = \/\^\\p\{RGI_Emoji\}\$\/v;$/m, "let rgiEmojiRegex;", /\brgiEmojiRegex\.test\(/g, '(rgiEmojiRegex ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(');
    }
    // Lines stay where they were: the source map needs no change (map: null says so).
    return { code: out, map: null };
  },
};

/**
 * mime-types, which express loads, parses mime-db's table (~180 KB of JSON) and fills its maps of
 * extensions, scoring the types of each of ~1,200 extensions, as it is loaded: ~15 % of the CLI's own
 * time to its first answer, for charsets of content types and lookups by extension that neither
 * start-up nor the JSON routes need (express's res.json and res.type look a charset up). The table is
 * read and the maps are filled on first use instead: the same objects, filled by the same code. Each
 * rewrite must find what it rewrites, as above, and no other use of the table may be left.
 */
const lazyMimeTypes = {
  name: "lazy-mime-types",
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]mime-types[\\/]index\.js$/.test(id)) return null;
    const rewrite = (text, pattern, replacement) => {
      if (!pattern.test(text)) throw new Error(`bundle: ${id} no longer reads as expected (${pattern.source}); update lazyMimeTypes`);
      return text.replace(pattern, replacement);
    };
    let out = rewrite(code, /^var db = require\('mime-db'\)$/m, "var mimeDb; function db () { return mimeDb || (mimeDb = require('mime-db')) }");
    out = rewrite(out, /\bdb\[/g, "db()[");
    out = rewrite(out, /\bObject\.keys\(db\)/g, "Object.keys(db())");
    if (/\bdb\b(?!\(\))/.test(out.replace("function db ()", "").replace("require('mime-db')", ""))) throw new Error(`bundle: ${id} uses mime-db in a way lazyMimeTypes does not rewrite; update it`);
    // The three maps become getters that fill them first (populateMaps reads them as it fills them: they are filled by then).
    out = rewrite(out, /^populateMaps\(exports\.extensions, exports\.types\)$/m, "var filled = false; ['extensions', 'types', '_extensionConflicts'].forEach(function (name) { var map = exports[name]; Object.defineProperty(exports, name, { configurable: true, enumerable: true, get: function () { if (!filled) { filled = true; populateMaps(exports.extensions, exports.types) } return map } }) })");
    // Lines stay where they were: the source map needs no change (map: null says so).
    return { code: out, map: null };
  },
};

/**
 * Packages that express's own modules require as they load, for requests the mock hardly ever
 * answers: iconv-lite (raw-body and body-parser, for bodies in other charsets) and qs (body-parser's
 * urlencoded parser and express's "extended" query parser; the mock reads queries with the "simple"
 * one). Each `NAME = require('PKG')` becomes a function that requires it on first use and each
 * `NAME.` a call of it: the same package, loaded when first needed. Each rewrite must find what it
 * rewrites and leave no other use of the name, or the build fails.
 */
const LAZY_REQUIRES = [
  { module: /[\\/]node_modules[\\/]raw-body[\\/]index\.js$/, name: "iconv", pkg: "iconv-lite" },
  { module: /[\\/]node_modules[\\/]body-parser[\\/]lib[\\/]read\.js$/, name: "iconv", pkg: "iconv-lite" },
  { module: /[\\/]node_modules[\\/]body-parser[\\/]lib[\\/]types[\\/]urlencoded\.js$/, name: "qs", pkg: "qs" },
  { module: /[\\/]node_modules[\\/]express[\\/]lib[\\/]utils\.js$/, name: "qs", pkg: "qs" },
];
const lazyRequires = {
  name: "lazy-requires",
  transform(code, id) {
    const lazy = LAZY_REQUIRES.find((l) => l.module.test(id));
    if (!lazy) return null;
    const { name, pkg } = lazy;
    const declaration = new RegExp(`^(?:const|var) ${name} = require\\('${pkg}'\\);?$`, "m");
    const uses = new RegExp(`\\b${name}\\.`, "g");
    if (!declaration.test(code) || !uses.test(code)) throw new Error(`bundle: ${id} no longer requires ${pkg} as expected; update LAZY_REQUIRES`);
    const out = code.replace(declaration, `var ${name}Loaded; function ${name} () { return ${name}Loaded || (${name}Loaded = require('${pkg}')) }`).replace(uses, `${name}().`);
    if (new RegExp(`\\b${name}\\b(?!\\(\\)|Loaded| \\(\\) \\{)`).test(out.replace(`require('${pkg}')`, ""))) throw new Error(`bundle: ${id} uses ${name} in a way lazyRequires does not rewrite; update it`);
    // Lines stay where they were: the source map needs no change (map: null says so).
    return { code: out, map: null };
  },
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
    plugins: [lazyStringWidth, lazyMimeTypes, lazyRequires, jsonAsText],
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
