import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { makeAjv, VALIDATOR_MODES, type ValidatorMode } from "./validator-modes.js";
import { PREBUILT_FOLDER, PrebuiltValidators } from "./prebuilt-validators.js";
import { codePath, packagePath } from "../core/code-root.js";

/** Base of every schema `$id`: `${SCHEMA_BASE}<service>/<file>.json`. */
export const SCHEMA_BASE = "https://agent-platform-mock.local/schemas/";

const SCHEMA_DIR = codePath("schemas");

/** The schema documents of a folder, and a digest of every file (prebuilt validators are found under it). */
export interface SchemaDocuments {
  fingerprint: string;
  /** Each document's JSON text by its `$id`, in the order of the file names. */
  texts: Record<string, string>;
}

/** Reads every schema file under `dir`, checking that each `$id` names its own path, and digests them. */
export function collectSchemas(dir: string): SchemaDocuments {
  const digest = createHash("sha256");
  const texts: Record<string, string> = {};
  for (const file of listJson(dir)) {
    const text = readFileSync(file, "utf8");
    const id = (JSON.parse(text) as Record<string, unknown>).$id;
    if (typeof id !== "string" || id !== SCHEMA_BASE + relative(dir, file).split("\\").join("/")) {
      throw new Error(`schema ${file} must have $id ${SCHEMA_BASE + relative(dir, file)}`);
    }
    texts[id] = text;
    digest.update(id).update("\0").update(text).update("\0");
  }
  return { fingerprint: digest.digest("hex"), texts };
}

/**
 * The JSON Schemas in this folder are the single source of truth for every resource and request body:
 * requests are validated with them, fixtures and scenarios are checked against them and generated
 * records come from them. Each validator is made once per process, whatever the number of mocks:
 * loaded from the build's prebuilt validators when there is one (prebuilt-validators.ts), else
 * compiled with ajv, which is then loaded and given the schemas.
 */
export class SchemaRegistry {
  /** A digest of every schema file: prebuilt validators are found under it. */
  readonly fingerprint: string;
  private readonly prebuilt: PrebuiltValidators;
  private readonly ajvs = new Map<ValidatorMode, Ajv2020>();
  private readonly compiled = new Map<ValidatorMode, Map<string, ValidateFunction>>();
  private readonly inlineCompiled = new Map<ValidatorMode, WeakMap<object, ValidateFunction>>();
  /** Each document's JSON text by `$id`: parsed on first use (into `documents`), as a start needs few of them. */
  private readonly texts: ReadonlyMap<string, string>;
  private readonly documents = new Map<string, Record<string, unknown>>();

  /**
   * `validateSchemas` checks each schema file against the JSON Schema meta-schema now. The schemas
   * ship with the package and test/foundation/schemas-valid.test.ts checks them so; a mock starting
   * up does not pay for compiling the meta-schema.
   */
  constructor(
    private readonly dir: string = SCHEMA_DIR,
    private readonly options: { validateSchemas?: boolean } = {},
  ) {
    const { fingerprint, texts } = collectSchemas(dir);
    this.texts = new Map(Object.entries(texts));
    this.fingerprint = fingerprint;
    this.prebuilt = new PrebuiltValidators([dir, packagePath("dist", "schemas")], this.fingerprint);
    if (options.validateSchemas) for (const mode of VALIDATOR_MODES) this.ajv(mode);
  }

  /**
   * A validator for a reference such as `control-plane/deployment.json#/$defs/Deployment`, or for an
   * inline schema object (made once per process, keyed by its text), applied the way `mode` says.
   */
  validator(ref: string | Record<string, unknown>, mode: ValidatorMode = "exact"): ValidateFunction {
    // Route declarations hand the same inline schema object on every request: find it by identity
    // first, so the hot path does not serialise the schema to find its key.
    if (typeof ref !== "string") {
      let byObject = this.inlineCompiled.get(mode);
      if (!byObject) this.inlineCompiled.set(mode, (byObject = new WeakMap()));
      let fn = byObject.get(ref);
      if (!fn) byObject.set(ref, (fn = this.lookup(ref, mode)));
      return fn;
    }
    return this.lookup(ref, mode);
  }

  /** The keys (see `validator`) of the validators made so far for `mode`: what the build prebuilds. */
  madeKeys(mode: ValidatorMode): string[] {
    return [...(this.compiled.get(mode)?.keys() ?? [])];
  }

  /** Every schema document and every `$defs` entry, as absolute references. */
  allRefs(): string[] {
    const out: string[] = [];
    for (const id of this.texts.keys()) {
      out.push(id);
      for (const name of Object.keys((this.parsed(id).$defs ?? {}) as object)) out.push(`${id}#/$defs/${name}`);
    }
    return out;
  }

  /** The raw schema documents, for an ajv of one's own (the build's standalone compilation). */
  allDocuments(): Record<string, unknown>[] {
    return [...this.texts.keys()].map((id) => this.parsed(id));
  }

  private lookup(ref: string | Record<string, unknown>, mode: ValidatorMode): ValidateFunction {
    const key = typeof ref === "string" ? absolute(ref) : `inline:${JSON.stringify(ref)}`;
    let cache = this.compiled.get(mode);
    if (!cache) this.compiled.set(mode, (cache = new Map()));
    let fn = cache.get(key);
    if (!fn) {
      fn = this.prebuilt.load(mode, key) ?? (typeof ref === "string" ? this.ajv(mode).getSchema(key) : this.ajv(mode).compile(ref));
      if (!fn) throw new Error(`unknown schema ${String(ref)}`);
      cache.set(key, fn);
    }
    return fn;
  }

  /** The ajv of `mode` with every schema added, made on first need (loading ajv itself then). */
  private ajv(mode: ValidatorMode): Ajv2020 {
    let ajv = this.ajvs.get(mode);
    if (!ajv) {
      ajv = makeAjv(mode, { validateSchema: this.options.validateSchemas ?? false });
      for (const schema of this.allDocuments()) ajv.addSchema(schema);
      this.ajvs.set(mode, ajv);
    }
    return ajv;
  }

  /** Validates a record exactly; returns ajv's errors (empty when valid). */
  check(ref: string | Record<string, unknown>, data: unknown): ErrorObject[] {
    const fn = this.validator(ref);
    return fn(data) ? [] : [...(fn.errors ?? [])];
  }

  /**
   * Validates request data as pydantic would: undeclared properties of closed objects are dropped
   * and, once the data is valid, schema defaults are filled in (both in place).
   */
  checkRequest(ref: string | Record<string, unknown>, data: unknown): ErrorObject[] {
    const fn = this.validator(ref, "request");
    if (!fn(data)) return [...(fn.errors ?? [])];
    this.validator(ref, "defaults")(data);
    return [];
  }

  /** The raw schema node a reference points at, with `$ref`s of that node followed. */
  resolve(ref: string | Record<string, unknown>): Record<string, unknown> {
    if (typeof ref !== "string") {
      if (typeof ref.$ref !== "string") return ref;
      ref = ref.$ref;
    }
    let id = absolute(ref);
    for (let hops = 0; hops < 20; hops++) {
      const [doc, pointer = ""] = id.split("#");
      const document = this.document(doc as string);
      if (!document) throw new Error(`unknown schema ${ref}`);
      const node = pointer
        .split("/")
        .filter(Boolean)
        .reduce<unknown>((n, key) => (n as Record<string, unknown>)?.[decodeURIComponent(key).replace(/~1/g, "/").replace(/~0/g, "~")], document);
      if (!node || typeof node !== "object") throw new Error(`unknown schema ${ref}`);
      const next = (node as Record<string, unknown>).$ref;
      if (typeof next !== "string") return node as Record<string, unknown>;
      id = next.startsWith("#") ? `${doc}${next}` : new URL(next, doc).toString();
    }
    throw new Error(`$ref loop at ${ref}`);
  }

  /** The schema at `ref` with every `$ref` inlined (cached): record generation walks it as one tree. */
  inlined(ref: string): Record<string, unknown> {
    return this.inlinedFrom(ref);
  }

  /** The raw JSON documents by `$id` (the OpenAPI generator copies definitions out of them). */
  document(id: string): Record<string, unknown> | undefined {
    const key = absolute(id);
    return this.texts.has(key) ? this.parsed(key) : undefined;
  }

  /** The document of a known `$id`, parsed on first use. */
  private parsed(id: string): Record<string, unknown> {
    let document = this.documents.get(id);
    if (!document) this.documents.set(id, (document = JSON.parse(this.texts.get(id) as string) as Record<string, unknown>));
    return document;
  }

  private inlinedFrom(ref: string): Record<string, unknown> {
    const id = absolute(ref);
    let out = this.inlinedCache.get(id);
    if (!out) {
      out = this.inline(this.resolve(id), (id.split("#")[0] as string), 0) as Record<string, unknown>;
      this.inlinedCache.set(id, out);
    }
    return out;
  }

  private readonly inlinedCache = new Map<string, Record<string, unknown>>();

  private inline(node: unknown, doc: string, depth: number): unknown {
    if (depth > 32) throw new Error(`schema nesting too deep (recursive $ref?) in ${doc}`);
    if (Array.isArray(node)) return node.map((n) => this.inline(n, doc, depth + 1));
    if (!node || typeof node !== "object") return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === "string") {
      const target = obj.$ref.startsWith("#") ? `${doc}${obj.$ref}` : new URL(obj.$ref, doc).toString();
      const { $ref: _ref, ...rest } = obj;
      const resolved = this.inline(this.resolve(target), target.split("#")[0] as string, depth + 1) as Record<string, unknown>;
      return Object.keys(rest).length ? { ...resolved, ...(this.inline(rest, doc, depth + 1) as object) } : resolved;
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(obj)) {
      if (key === "$defs" || key === "$id" || key === "$schema") continue;
      out[key] = this.inline(value, doc, depth + 1);
    }
    return out;
  }
}

function absolute(ref: string): string {
  return ref.startsWith("http") ? ref : SCHEMA_BASE + ref;
}

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // The build's prebuilt validators sit beside the schemas (hundreds of files, none of them schemas).
    if (entry.isDirectory()) out.push(...(entry.name === PREBUILT_FOLDER ? [] : listJson(path)));
    else if (entry.name.endsWith(".json")) out.push(path);
  }
  return out.sort();
}

let shared: SchemaRegistry | undefined;

/** The process-wide registry: schemas are static, so every mock instance shares one compiled set. */
export function schemas(): SchemaRegistry {
  shared ??= new SchemaRegistry();
  return shared;
}
