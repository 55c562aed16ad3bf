import type { ErrorObject } from "ajv";
import { readDocuments, type SourceDocument } from "../core/read-documents.js";
import { LoadError, type LoadProblem } from "../core/load-error.js";
import { isPlainObject, toPointer } from "../core/json.js";
import { schemas } from "../schemas/registry.js";
import { BUNDLED_FIXTURES, type FixtureDocument, type MockOptions } from "../options.js";

/** The schema of a whole fixture file (which sections exist and their shape). */
export const FIXTURE_FILE_SCHEMA = "fixtures/fixture-file.json";

/** One entry of a fixture section, with the place it came from for error messages. */
export interface FixtureEntry {
  value: Record<string, unknown>;
  file: string;
  /** Pointer of the entry inside its file, e.g. "/deployments/3". */
  pointer: string;
  /** Position among all entries of its section across files (stable generation labels). */
  index: number;
}

/**
 * The fixture documents of one mock, merged: each section (`deployments`, `oauth_providers`, …) is
 * the concatenation of that section in every file, in file order. Domain modules read their sections
 * and report problems here; `finish()` refuses the whole set if any were found.
 */
export class FixtureSet {
  readonly problems: LoadProblem[] = [];

  constructor(readonly documents: SourceDocument[]) {}

  entries(section: string): FixtureEntry[] {
    const out: FixtureEntry[] = [];
    for (const doc of this.documents) {
      const list = isPlainObject(doc.content) ? doc.content[section] : undefined;
      if (!Array.isArray(list)) continue;
      list.forEach((value, i) => {
        if (isPlainObject(value)) out.push({ value, file: doc.file, pointer: toPointer([section, i]), index: out.length });
      });
    }
    return out;
  }

  /** A scalar or object setting (for example `organization_id`): the last file that sets it wins. */
  setting(key: string): { value: unknown; file: string; pointer: string } | undefined {
    let found: { value: unknown; file: string; pointer: string } | undefined;
    for (const doc of this.documents) {
      if (isPlainObject(doc.content) && Object.hasOwn(doc.content, key)) found = { value: doc.content[key], file: doc.file, pointer: toPointer([key]) };
    }
    return found;
  }

  problem(at: { file: string; pointer: string }, reason: string, subPointer = ""): void {
    this.problems.push({ file: at.file, pointer: at.pointer + subPointer, reason });
  }

  /**
   * Validates a completed record against its resource schema. Problems point into the fixture entry
   * (the record's own pointers equal the entry's, since filled-in fields are valid by construction).
   */
  check(entry: { file: string; pointer: string }, ref: string, record: unknown): boolean {
    const errors = schemas().check(ref, record);
    for (const e of errors) this.problems.push({ file: entry.file, pointer: entry.pointer + pointerOf(e), reason: reasonOf(e) });
    return errors.length === 0;
  }

  finish(): void {
    if (this.problems.length) throw new LoadError(this.problems, "fixtures");
  }
}

/** Reads and structurally validates the fixture sources named by the options. */
export function readFixtures(option: MockOptions["fixtures"]): FixtureSet {
  const problems: LoadProblem[] = [];
  const documents: SourceDocument[] = [];
  const inputs = option === undefined ? [BUNDLED_FIXTURES] : option === false ? [] : Array.isArray(option) ? option : [option];
  let inline = 0;
  for (const input of inputs as (string | FixtureDocument)[]) {
    if (typeof input === "string") documents.push(...readDocuments([input], problems, false));
    else documents.push({ file: `<fixtures object ${++inline}>`, content: input });
  }
  for (const doc of documents) {
    for (const e of schemas().check(FIXTURE_FILE_SCHEMA, doc.content)) {
      problems.push({ file: doc.file, pointer: pointerOf(e), reason: reasonOf(e) });
    }
  }
  if (problems.length) throw new LoadError(problems, "fixtures");
  return new FixtureSet(documents);
}

export function pointerOf(e: ErrorObject): string {
  const extra = e.keyword === "required" ? `/${String((e.params as { missingProperty: string }).missingProperty)}`
    : e.keyword === "additionalProperties" ? `/${String((e.params as { additionalProperty: string }).additionalProperty)}`
    : "";
  return e.instancePath + extra;
}

export function reasonOf(e: ErrorObject): string {
  switch (e.keyword) {
    case "required":
      return "required property is missing";
    case "additionalProperties":
      return "unknown property (not in the schema)";
    case "enum":
      return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}; got ${JSON.stringify(e.data)}`;
    default:
      return `${e.message ?? e.keyword}; got ${JSON.stringify(e.data)?.slice(0, 80)}`;
  }
}
