import { readFileSync } from "node:fs";
import { codePath } from "./code-root.js";

/** Written by the build (scripts/build.mjs): a digest of the built code and schemas. */
export const BUILD_ID_FILE = codePath("build-id");

let id: string | null | undefined;

/**
 * What this build of the mock is, as a digest of its code and schemas; undefined when running from
 * src/ (the test suite), which has none. Values computed by the mock's own code and kept on disk
 * between processes are kept under it, so another build never reads them.
 */
export function buildId(): string | undefined {
  if (id === undefined) {
    try {
      id = readFileSync(BUILD_ID_FILE, "utf8").trim() || null;
    } catch {
      id = null;
    }
  }
  return id ?? undefined;
}
