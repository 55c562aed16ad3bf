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
 * written from other schemas is never found. A validator without a file — the schemas changed after
 * the build, a schema the build does not cover, or the mock running from src/ (the test suite) — is
 * compiled with ajv instead, as it always was: the same checks, only slower to get.
 */
export class PrebuiltValidators {
  /** Whether the build wrote any (not when running from src/): otherwise no lookup touches the disk. */
  private readonly built: boolean;

  constructor(
    private readonly schemaDir: string,
    private readonly fingerprint: string,
  ) {
    this.built = existsSync(join(schemaDir, PREBUILT_FOLDER));
  }

  /** Where the validator of `key` (an absolute schema reference, or `inline:` and a schema's JSON) for `mode` is written. */
  file(mode: ValidatorMode, key: string): string {
    const name = sha256Hex(`${this.fingerprint}\0${key}`).slice(0, 24);
    return join(this.schemaDir, PREBUILT_FOLDER, mode, `${name}.cjs`);
  }

  /** The prebuilt validator, or undefined when the build wrote none for these schemas. */
  load(mode: ValidatorMode, key: string): ValidateFunction | undefined {
    if (!this.built) return undefined;
    const file = this.file(mode, key);
    return existsSync(file) ? (require(file) as ValidateFunction) : undefined;
  }
}
