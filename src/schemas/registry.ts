import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { ajv as ajvPackage } from "../core/lazy-modules.js";


/** Base of every schema `$id`: `${SCHEMA_BASE}<service>/<file>.json`. */
export const SCHEMA_BASE = "https://agent-platform-mock.local/schemas/";

const SCHEMA_DIR = fileURLToPath(new URL(".", import.meta.url));

/**
 * The JSON Schemas in this folder are the single source of truth for every resource and request body:
 * requests are validated with them, fixtures and scenarios are checked against them and generated
 * records come from them. They are read and compiled once per process, whatever the number of mocks.
 */
export class SchemaRegistry {
  /** Checks records (fixtures, scenarios, responses) exactly: unknown properties are errors. */
  readonly ajv: Ajv2020;
  /**
   * Checks request bodies and queries the way pydantic reads them: properties a closed object does
   * not declare are dropped instead of refused. It fills no defaults, so a 422 echoes the input as sent.
   */
  readonly requestAjv: Ajv2020;
  /** Fills schema defaults into request data that has passed `requestAjv`. */
  readonly defaultsAjv: Ajv2020;
  private readonly compiled = new Map<Ajv2020, Map<string, ValidateFunction>>();
  private readonly inlineCompiled = new Map<Ajv2020, WeakMap<object, ValidateFunction>>();
  private readonly documents = new Map<string, Record<string, unknown>>();

  /**
   * `validateSchemas` checks each schema file against the JSON Schema meta-schema as it is added. The
   * schemas ship with the package and test/foundation/schemas-valid.test.ts checks them so; a mock
   * starting up does not pay for compiling the meta-schema three times.
   */
  constructor(dir: string = SCHEMA_DIR, options: { validateSchemas?: boolean } = {}) {
    const validateSchema = options.validateSchemas ?? false;
    this.ajv = makeAjv({ useDefaults: false, removeAdditional: false, validateSchema });
    this.requestAjv = makeAjv({ useDefaults: false, removeAdditional: true, validateSchema });
    this.defaultsAjv = makeAjv({ useDefaults: true, removeAdditional: true, validateSchema });
    for (const file of listJson(dir)) {
      const schema = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      const id = schema.$id;
      if (typeof id !== "string" || id !== SCHEMA_BASE + relative(dir, file).split("\\").join("/")) {
        throw new Error(`schema ${file} must have $id ${SCHEMA_BASE + relative(dir, file)}`);
      }
      this.documents.set(id, schema);
      for (const ajv of [this.ajv, this.requestAjv, this.defaultsAjv]) ajv.addSchema(schema);
    }
  }

  /**
   * A compiled validator for a reference such as `control-plane/deployment.json#/$defs/Deployment`, or
   * for an inline schema object (compiled once per process, keyed by its text).
   */
  validator(ref: string | Record<string, unknown>, ajv: Ajv2020 = this.ajv): ValidateFunction {
    // Route declarations hand the same inline schema object on every request: find it by identity
    // first, so the hot path does not serialise the schema to find its key.
    if (typeof ref !== "string") {
      let byObject = this.inlineCompiled.get(ajv);
      if (!byObject) this.inlineCompiled.set(ajv, (byObject = new WeakMap()));
      let fn = byObject.get(ref);
      if (!fn) byObject.set(ref, (fn = this.lookup(ref, ajv)));
      return fn;
    }
    return this.lookup(ref, ajv);
  }

  private lookup(ref: string | Record<string, unknown>, ajv: Ajv2020): ValidateFunction {
    const id = typeof ref === "string" ? absolute(ref) : `inline:${JSON.stringify(ref)}`;
    let cache = this.compiled.get(ajv);
    if (!cache) this.compiled.set(ajv, (cache = new Map()));
    let fn = cache.get(id);
    if (!fn) {
      fn = typeof ref === "string" ? ajv.getSchema(id) : ajv.compile(ref);
      if (!fn) throw new Error(`unknown schema ${String(ref)}`);
      cache.set(id, fn);
    }
    return fn;
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
    const fn = this.validator(ref, this.requestAjv);
    if (!fn(data)) return [...(fn.errors ?? [])];
    this.validator(ref, this.defaultsAjv)(data);
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
      const document = this.documents.get(doc as string);
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

  /**
   * The schema at `ref` with every `$ref` inlined (cached). json-schema-faker resolves references
   * without regard to base URIs, so it is handed self-contained schemas.
   */
  inlined(ref: string): Record<string, unknown> {
    return this.inlinedFrom(ref);
  }

  /** The raw JSON documents by `$id` (the OpenAPI generator copies definitions out of them). */
  document(id: string): Record<string, unknown> | undefined {
    return this.documents.get(absolute(id));
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

function makeAjv(options: { useDefaults: boolean; removeAdditional: boolean; validateSchema: boolean }): Ajv2020 {
  const { Ajv2020, addFormats } = ajvPackage();
  const ajv = new Ajv2020({ allErrors: true, strict: true, verbose: true, allowUnionTypes: true, ...options });
  addFormats(ajv);
  // Annotation keyword: a data-generation hint for json-schema-faker, ignored by validation.
  ajv.addKeyword({ keyword: "faker" });
  return ajv;
}

function absolute(ref: string): string {
  return ref.startsWith("http") ? ref : SCHEMA_BASE + ref;
}

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJson(path));
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
