import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { ValidatorMode } from "./validator-modes.js";
import { sha256Hex } from "../core/digest.js";

const require = createRequire(import.meta.url);

/** Folder of the prebuilt validators, next to the schema files (dist/schemas/validators/). */
export const PREBUILT_FOLDER = "validators";

/**
 * The validators the build compiled (scripts/compile-validators.mjs writes ajv's standalone code,
 * one CommonJS file per schema and mode): a mock starting up loads the few it needs instead of
 * loading ajv and compiling them, which was most of its start-up time.
 *
 * A file is named for the fingerprint of all the schema files and for what it validates, so a file
 * written from other schemas is never found. Running from src/ (the test suite), the build's folder
 * in dist/ is used: `npm test` builds it first, so the suite runs the validators that ship. A
 * validator without a file — the schemas changed after the build, a schema the build does not
 * cover, no build — is compiled with ajv instead: the same checks, only slower to get.
 */
export class PrebuiltValidators {
  /** The folder the build wrote them to, if there is one: otherwise no lookup touches the disk. */
  private readonly folder: string | undefined;

  /** `schemaDirs`: where to look, in order (the schemas' own folder, then the build's). */
  constructor(
    schemaDirs: readonly string[],
    private readonly fingerprint: string,
  ) {
    this.folder = schemaDirs.map((dir) => join(dir, PREBUILT_FOLDER)).find((folder) => existsSync(folder));
  }

  /** Where the validator of `key` (an absolute schema reference, or `inline:` and a schema's JSON) for `mode` is, in `folder`. */
  static file(folder: string, fingerprint: string, mode: ValidatorMode, key: string): string {
    const name = sha256Hex(`${fingerprint}\0${key}`).slice(0, 24);
    return join(folder, mode, `${name}.cjs`);
  }

  /** The prebuilt validator, or undefined when the build wrote none for these schemas. */
  load(mode: ValidatorMode, key: string): ValidateFunction | undefined {
    if (!this.folder) return undefined;
    const file = PrebuiltValidators.file(this.folder, this.fingerprint, mode, key);
    return existsSync(file) ? (require(file) as ValidateFunction) : undefined;
  }
}
