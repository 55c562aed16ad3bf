import type { Ajv2020 } from "ajv/dist/2020.js";
import { ajv as ajvPackage } from "../core/lazy-modules.js";

/**
 * The three ways a schema is applied, one ajv configuration each:
 * - `exact` checks records (fixtures, scenarios, responses): unknown properties are errors;
 * - `request` checks request bodies and queries the way pydantic reads them: properties a closed
 *   object does not declare are dropped instead of refused. It fills no defaults, so a 422 echoes
 *   the input as sent;
 * - `defaults` fills schema defaults into request data that has passed `request`.
 */
export type ValidatorMode = "exact" | "request" | "defaults";

export const VALIDATOR_MODES: readonly ValidatorMode[] = ["exact", "request", "defaults"];

const MODE_OPTIONS: Record<ValidatorMode, { useDefaults: boolean; removeAdditional: boolean }> = {
  exact: { useDefaults: false, removeAdditional: false },
  request: { useDefaults: false, removeAdditional: true },
  defaults: { useDefaults: true, removeAdditional: true },
};

/**
 * An ajv for `mode`. `validateSchema` checks each schema added against the meta-schema; `source`
 * keeps each validator's code, which the build needs to write it out (ajv's standalone code).
 */
export function makeAjv(mode: ValidatorMode, options: { validateSchema: boolean; source?: boolean }): Ajv2020 {
  const { Ajv2020, addFormats } = ajvPackage();
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    verbose: true,
    allowUnionTypes: true,
    validateSchema: options.validateSchema,
    code: { source: options.source ?? false },
    ...MODE_OPTIONS[mode],
  });
  addFormats(ajv);
  // Annotation keyword: how record generation draws a value (src/store/generate.ts), ignored by validation.
  ajv.addKeyword({ keyword: "faker" });
  return ajv;
}
