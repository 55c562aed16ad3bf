#!/usr/bin/env node
// `npm pack` and `npm publish` (prepack, postpack): the package.json packed carries no `scripts`.
// They are the repository's (they run src/ and scripts/, which are not shipped), and npm 11 lists a
// dependency's `prepare` among the "install scripts not yet covered by allowScripts" it warns about
// at every install of the tarball, although it runs `prepare` only for git and linked packages.
// A git install still builds: it clones the repository, whose package.json keeps `prepare`.
//
//   node scripts/pack-manifest.mjs strip     keep package.json aside, write it without `scripts`
//   node scripts/pack-manifest.mjs restore   put the kept package.json back
//
// Both keep package.json's modification time, which scripts/build-if-stale.mjs compares with dist/'s:
// packing must not make the build look stale.
import { existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const manifest = join(root, "package.json");
const kept = join(root, "package.json.unpacked");

function restore() {
  if (!existsSync(kept)) return;
  const { atime, mtime } = statSync(kept);
  renameSync(kept, manifest);
  utimesSync(manifest, atime, mtime);
}

const step = process.argv[2];
if (step === "strip") {
  // A pack that failed half-way left the full manifest aside: start from it.
  restore();
  const text = readFileSync(manifest, "utf8");
  const { atime, mtime } = statSync(manifest);
  const { scripts: _scripts, ...packed } = JSON.parse(text);
  writeFileSync(kept, text);
  utimesSync(kept, atime, mtime);
  // Written beside, then renamed over: a reader never sees half a file.
  writeFileSync(`${manifest}.packed`, `${JSON.stringify(packed, null, 2)}\n`);
  renameSync(`${manifest}.packed`, manifest);
  utimesSync(manifest, atime, mtime);
} else if (step === "restore") {
  restore();
} else {
  process.stderr.write("usage: node scripts/pack-manifest.mjs strip|restore\n");
  process.exit(2);
}
