import { readFileSync } from "node:fs";
import { packagePath } from "../core/code-root.js";

/**
 * This package's own version, from its package.json. yargs's
 * automatic `--version` looks for the package.json nearest the working directory, which under
 * `npx` in another project is that project's.
 */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version?: string };
  return pkg.version ?? "unknown";
}
