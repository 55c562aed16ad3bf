import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule.default;
const REFERENCE = fileURLToPath(new URL("../reference/", import.meta.url));

/**
 * One of the real services' OpenAPI documents, read as data: its operations, and a check of a response
 * body against the schema the document declares for that status. test/reference/ holds their structure
 * (scripts/strip-reference.mjs writes it from a newer document).
 */
export class ReferenceDocument {
  readonly doc: { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }> }>> };
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(file: string) {
    this.doc = JSON.parse(readFileSync(REFERENCE + file, "utf8"));
    addFormats(this.ajv);
    this.ajv.addSchema({ ...(this.doc as object), $id: "reference" } as never);
  }

  /** Every operation as `METHOD /path`. */
  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== "parameters").map((m) => `${m.toUpperCase()} ${path}`));
  }

  /** The document's problems with a body answered for `METHOD /path` with `status` (empty when it fits). */
  check(operation: string, status: number, body: unknown): string[] {
    const [method, path] = operation.split(" ") as [string, string];
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    if (!op) return [`${operation} is not in the document`];
    const response = op.responses[String(status)] ?? op.responses.default;
    if (!response) return [`${operation} → ${status} is not a documented status (${Object.keys(op.responses).join(", ")})`];
    const schema = response.content?.["application/json"]?.schema;
    const example = response.content?.["application/json"]?.example;
    if (schema === undefined && example !== undefined) return fitsExample(example, body).map((problem) => `${operation} → ${status}: ${problem}`);
    if (schema === undefined) return body === undefined || body === "" || (typeof body === "object" && body !== null && Object.keys(body).length === 0) ? [] : [`${operation} → ${status} documents no body`];
    const key = `${operation} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const pointer = `#/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method.toLowerCase()}/responses/${status in op.responses ? status : "default"}/content/application~1json/schema`;
      validate = this.ajv.compile({ $ref: `reference${pointer}` });
      this.compiled.set(key, validate);
    }
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${operation} → ${status}: ${e.instancePath || "/"} ${e.message}`);
  }
}

/**
 * A response the document gives only as an example (`{"detail": "Listener ID {listener_id} not
 * found."}`): the body must have the same keys and JSON types, and a text with `{placeholders}` must
 * read the same with any value in their place. A text without placeholders ("Error description.") is
 * the document's stand-in and only has to be a text.
 */
function fitsExample(example: unknown, body: unknown, at = ""): string[] {
  if (typeof example === "string") {
    if (typeof body !== "string") return [`${at || "/"} should be a string`];
    if (!/\{[a-z_]+\}/.test(example)) return [];
    const pattern = new RegExp(`^${example.split(/\{[a-z_]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".+")}$`);
    return pattern.test(body) ? [] : [`${at || "/"} "${body}" does not read as the documented "${example}"`];
  }
  if (example === null || typeof example !== "object" || Array.isArray(example)) return typeof body === typeof example ? [] : [`${at || "/"} should be ${typeof example}`];
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [`${at || "/"} should be an object`];
  const keys = Object.keys(example).sort();
  const got = Object.keys(body).sort();
  if (keys.join() !== got.join()) return [`${at || "/"} has keys ${got.join(", ")}, documented ${keys.join(", ")}`];
  return keys.flatMap((key) => fitsExample((example as Record<string, unknown>)[key], (body as Record<string, unknown>)[key], `${at}/${key}`));
}
