import type { ErrorObject } from "ajv";
import { ParsedFiles, readDocuments, type SourceDocument } from "../core/read-documents.js";
import { LoadError, type LoadProblem } from "../core/load-error.js";
import { closest } from "../core/did-you-mean.js";
import { isPlainObject, omit, toPointer } from "../core/json.js";
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

/** A fixture document; `passedIn` when it is an object given in the options rather than a file. */
export interface FixtureDocumentSource extends SourceDocument {
  passedIn?: true;
}

/**
 * The fixture documents of one mock, merged: each section (`deployments`, `oauth_providers`, …) is
 * the concatenation of that section in every file, in file order. Domain modules read their sections
 * and report problems here; `finish()` refuses the whole set if any were found.
 */
export class FixtureSet {
  readonly problems: LoadProblem[];

  /**
   * `problems`: those found while reading the documents; seeding adds its own and finish() reports all.
   * `textKey`: names the texts the documents were read from, the same for the same texts in this
   * process (ParsedFiles.textKey); undefined when any was passed in as an object. What a seeded start
   * makes from the documents can be kept under it (control-plane/seed.ts).
   */
  constructor(
    readonly documents: FixtureDocumentSource[],
    problems: LoadProblem[] = [],
    readonly textKey?: string,
  ) {
    this.problems = [...problems];
  }

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

  /**
   * Refuses the set if seeding found problems; otherwise lets go of the parsed documents. The mock's
   * modules keep this set (their seed steps close over it) as long as the mock lives, and the store
   * holds what it took from the entries: the rest of a large fixture file (its parse tree, ~0.7 × the
   * file's size) would stay for nothing.
   */
  finish(): void {
    if (this.problems.length) throw new LoadError(this.problems, "fixtures");
    this.documents.length = 0;
  }
}

/**
 * Reads and structurally validates the fixture sources named by the options. Problems found here do
 * not stop the reading: the sections they are in are left out and everything else goes on to be
 * seeded and checked, so that finish() reports every problem of every file at once.
 */
export function readFixtures(option: MockOptions["fixtures"]): FixtureSet {
  const problems: LoadProblem[] = [];
  const documents: FixtureDocumentSource[] = [];
  const inputs = option === undefined ? [BUNDLED_FIXTURES] : option === false ? [] : Array.isArray(option) ? option : [option];
  let inline = 0;
  for (const input of inputs as (string | FixtureDocument)[]) {
    if (typeof input === "string") documents.push(...readDocuments([input], problems, false, parsedFiles));
    else documents.push({ file: `<fixtures object ${++inline}>`, content: input, passedIn: true });
  }
  const usable: FixtureDocumentSource[] = [];
  for (const doc of documents) {
    const errors = fileErrors(doc);
    for (const e of errors) problems.push({ file: doc.file, pointer: pointerOf(e), reason: reasonOf(e) });
    if (!isPlainObject(doc.content)) continue;
    // A section with a structural problem is not seeded: its entries cannot be read reliably.
    const broken = new Set(errors.map((e) => decodePointerSegment(pointerOf(e).split("/")[1] ?? "")).filter(Boolean));
    usable.push(broken.size ? { ...doc, content: omit(doc.content, [...broken]) } : doc);
  }
  const keys = documents.map((doc) => parsedFiles.textKey(doc));
  return new FixtureSet(usable, problems, keys.every((k) => k !== undefined) ? keys.join(",") : undefined);
}

/** Fixture files parsed by this process (a later start reads the same files again). */
const parsedFiles = new ParsedFiles();
/** The file schema's verdict on each kept (frozen, shared) document's content: the same for every start. */
const checkedFiles = new WeakMap<object, ErrorObject[]>();

function fileErrors(doc: FixtureDocumentSource): ErrorObject[] {
  const content = doc.content;
  const keyed = !doc.passedIn && typeof content === "object" && content !== null && Object.isFrozen(content);
  let errors = keyed ? checkedFiles.get(content) : undefined;
  if (errors === undefined) {
    errors = schemas().check(FIXTURE_FILE_SCHEMA, content);
    if (keyed) checkedFiles.set(content, errors);
  }
  return errors;
}

function decodePointerSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
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
    case "additionalProperties": {
      // ajv runs with `verbose`, so the object's schema is at hand: its property names are the hints.
      const known = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      const hint = closest((e.params as { additionalProperty: string }).additionalProperty, known);
      return hint === undefined ? "unknown property (not in the schema)" : `unknown property (not in the schema; did you mean ${JSON.stringify(hint)}?)`;
    }
    case "enum":
      return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}; got ${JSON.stringify(e.data)}`;
    default:
      return `${e.message ?? e.keyword}; got ${JSON.stringify(e.data)?.slice(0, 80)}`;
  }
}
