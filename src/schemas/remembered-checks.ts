import type { ErrorObject } from "ajv/dist/2020.js";
import { buildId } from "../core/build-id.js";
import { sha256Hex } from "../core/digest.js";
import { exactJsonText } from "../core/json.js";
import { builtValueKey, fixtureCache } from "../store/draft-cache.js";
import { schemas } from "./registry.js";

/**
 * Start-up's schema checks of fixture files, fixture records and scenarios, remembering what passed.
 * A start checks the same documents and records every time (the bundled ones, a project's own), and
 * the first check against a schema in a process loads its validator — most of what checking costs.
 * A value found valid is kept, as a digest of its schema reference and JSON text, in a file of the
 * fixture cache folder (src/store/draft-cache.ts: the same folder, the same `off`) filed under the
 * build (core/build-id.ts), and the next process's first start takes that value as checked (its
 * later starts check with the validators). Only what passed is remembered (a problem is always worked
 * out again, with its pointer and reason), only values JSON carries exactly (a NaN or an undefined
 * property could pass for another value), and only in the built package: from src/ (the test suite)
 * every check runs.
 */
export function checkRemembering(ref: string, data: unknown): ErrorObject[] {
  // Remembering serves a process's first start, where it saves loading validators. After it (a test
  // suite building a mock per test), checking with a validator at hand is cheaper than a digest. In
  // the first start every value that passes is remembered, also once a miss has loaded its schema's
  // validator: the next process then finds them all, rather than one more per schema each time.
  if (started) return schemas().check(ref, data);
  const key = rememberable(ref, data);
  const remembered = key === undefined ? undefined : passed();
  if (key !== undefined && remembered?.has(key)) return [];
  const errors = schemas().check(ref, data);
  if (key !== undefined && remembered && errors.length === 0) {
    // Bounded: an unseeded mock's records differ every start, and the file is read whole by each process.
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.add(key);
    added = true;
  }
  return errors;
}

/** Writes what this process found valid for the next one (createApp calls it when the start is done). */
export function saveRememberedChecks(): void {
  started = true;
  if (!added || !known || file === undefined) return;
  added = false;
  fixtureCache().write(file, JSON.stringify({ passed: [...known] }));
}

/** How many passed values are remembered at most (the file is then ~130 KB); past it the list starts again. */
const MAX_REMEMBERED = 2000;
/** Whether a start of this process is done. */
let started = false;
let known: Set<string> | undefined;
let added = false;
let file: string | undefined;

/** The set of remembered keys (read on first use), or undefined when nothing is remembered. */
function passed(): Set<string> | undefined {
  if (known) return known;
  file = builtValueKey("checked-values");
  if (file === undefined) return undefined;
  const list = fixtureCache().read(file)?.passed;
  known = new Set(Array.isArray(list) ? list.filter((k): k is string => typeof k === "string") : []);
  return known;
}

function rememberable(ref: string, data: unknown): string | undefined {
  if (buildId() === undefined) return undefined;
  const text = exactJsonText(data);
  return text === undefined ? undefined : sha256Hex(`${ref}\0${text}`);
}
