import { expect } from "vitest";
import { schemas } from "../../src/schemas/registry.js";

/**
 * Asserts that `value` fits the schema at `ref` (e.g. "tracing/feedback.json#/$defs/Feedback"),
 * printing ajv's problems when it does not.
 */
export function expectFits(ref: string, value: unknown): void {
  expect(schemas().check(ref, value), `does not fit ${ref}`).toEqual([]);
}
