import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule.default;
const REFERENCE = fileURLToPath(new URL("../../../shared/reference/", import.meta.url));

/**
 * One of the real services' OpenAPI documents in ../shared/reference, read as data: its operations,
 * and a check of a response body against the schema the document declares for that status.
 */
export class ReferenceDocument {
  readonly doc: { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };
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
