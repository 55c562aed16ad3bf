import { SCHEMA_BASE, schemas } from "../schemas/registry.js";
import type { MountedRoute } from "./registrar.js";
import type { JsonSchema, SchemaRef } from "./route.js";

type Document = Record<string, unknown>;

/**
 * An OpenAPI 3.1 document of the given routes, generated from their declarations: parameters from the
 * path, query and header schemas, the body, every declared response, the module's error shape and API
 * key. Schemas of src/schemas become `components.schemas` (JSON Schema 2020-12, as OpenAPI 3.1 takes
 * it) so the document is self-contained.
 */
export function openApiDocument(routes: readonly MountedRoute[], info: { title: string; version: string; description: string }): Document {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, string>();
  let secured = false;
  for (const { module, spec, path, prefix } of routes) {
    tags.set(module.name, module.name);
    // Routes served again under a later prefix (an agent deployment's URL) get their own operation ids.
    const alias = prefix !== module.prefixes[0] ? prefix.replace(/\{[^}]+\}/g, "").replace(/[^a-z]+/gi, "_").replace(/^_|_$/g, "") : "";
    const parameters = [
      ...pathParamsOf(path, spec.params, components),
      ...propertiesOf(spec.query, "query", components),
      ...propertiesOf(spec.headers, "header", components),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      if (response === null) responses[status] = { description: "No content" };
      else if (typeof response === "object" && "sse" in response) responses[status] = { description: "Server-sent events", content: { "text/event-stream": { schema: { type: "string" } } } };
      else if (typeof response === "object" && "text" in response) responses[status] = { description: "Text", content: { [String(response.text)]: { schema: { type: "string" } } } };
      else responses[status] = { description: "Success", content: { "application/json": { schema: components.schema(response as SchemaRef) } } };
    }
    responses.default = { description: "Error", content: { "application/json": { schema: components.schema(module.errorSchema) } } };
    const operation: Record<string, unknown> = {
      operationId: alias ? `${spec.name}.via_${alias}` : spec.name,
      tags: [module.name],
      ...(spec.summary ? { summary: spec.summary } : {}),
      ...(parameters.length ? { parameters } : {}),
      responses,
    };
    if (spec.body !== undefined || spec.bodyKind === "text") {
      const content: Record<string, unknown> =
        spec.bodyKind === "text"
          ? { "application/json": { schema: {} }, "application/yaml": { schema: { type: "string" } } }
          : { "application/json": { schema: spec.body === undefined ? {} : components.schema(spec.body) } };
      if (spec.bodyKind === "json-or-form") content["application/x-www-form-urlencoded"] = { schema: { type: "object" } };
      operation.requestBody = { required: spec.emptyBody === undefined && spec.bodyKind !== "text", content };
    }
    if (module.securityScheme && !spec.public) {
      operation.security = [{ [module.securityScheme]: [] }];
      secured = true;
    }
    (paths[path] ??= {})[spec.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info,
    tags: [...tags.keys()].map((name) => ({ name })),
    paths,
    components: {
      schemas: components.all(),
      ...(secured ? { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" }, adminToken: { type: "http", scheme: "bearer" } } } : {}),
    },
  };
}

function pathParamsOf(path: string, schema: SchemaRef | undefined, components: Components): unknown[] {
  const declared = schema === undefined ? {} : ((schemas().resolve(schema).properties ?? {}) as Record<string, JsonSchema>);
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: declared[name as string] ? components.inline(declared[name as string] as JsonSchema, baseOf(schema)) : { type: "string" },
  }));
}

function propertiesOf(schema: SchemaRef | undefined, where: "query" | "header", components: Components): unknown[] {
  if (schema === undefined) return [];
  const node = schemas().resolve(schema);
  const required = new Set((node.required ?? []) as string[]);
  return Object.entries((node.properties ?? {}) as Record<string, JsonSchema>).map(([name, sub]) => ({
    name,
    in: where,
    required: required.has(name),
    schema: components.inline(sub, baseOf(schema)),
  }));
}

function baseOf(schema: SchemaRef | undefined): string {
  if (typeof schema !== "string") return SCHEMA_BASE;
  return schema.startsWith("http") ? schema : SCHEMA_BASE + schema;
}

/** The schemas the document refers to, each copied once under a readable name. */
class Components {
  private readonly byRef = new Map<string, string>();
  private readonly schemas: Record<string, unknown> = {};

  /** A schema for a declaration: a component `$ref` for a reference, an inlined copy for an object. */
  schema(ref: SchemaRef): unknown {
    return typeof ref === "string" ? { $ref: `#/components/schemas/${this.add(baseOf(ref))}` } : this.inline(ref, SCHEMA_BASE);
  }

  all(): Record<string, unknown> {
    return this.schemas;
  }

  /** A copy of a schema node with every `$ref` (resolved against `base`) pointing at a component. */
  inline(node: unknown, base: string): unknown {
    if (Array.isArray(node)) return node.map((n) => this.inline(n, base));
    if (!node || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      // Annotations of this project (faker hints) and document-level keys stay out of the document.
      if (key === "faker" || key === "$id" || key === "$schema" || key === "$defs") continue;
      if (key === "$ref" && typeof value === "string") out.$ref = `#/components/schemas/${this.add(new URL(value, base).toString())}`;
      else out[key] = this.inline(value, base);
    }
    return out;
  }

  private add(absoluteRef: string): string {
    const known = this.byRef.get(absoluteRef);
    if (known) return known;
    const [doc, pointer = ""] = absoluteRef.split("#");
    const stem = (doc as string).replace(SCHEMA_BASE, "").replace(/\.json$/, "").replace(/[^A-Za-z0-9]+/g, "_");
    let name = pointer.split("/").filter(Boolean).pop() ?? stem;
    if (Object.hasOwn(this.schemas, name)) name = `${stem}_${name}`;
    this.byRef.set(absoluteRef, name);
    this.schemas[name] = {}; // reserved before recursing: schemas may refer to themselves
    const raw = pointer ? pointerNode(schemas().document(doc as string), pointer) : schemas().document(doc as string);
    this.schemas[name] = this.inline(raw, doc as string);
    return name;
  }
}

function pointerNode(document: unknown, pointer: string): unknown {
  return pointer
    .split("/")
    .filter(Boolean)
    .reduce<unknown>((n, key) => (n as Record<string, unknown> | undefined)?.[decodeURIComponent(key).replace(/~1/g, "/").replace(/~0/g, "~")], document);
}
