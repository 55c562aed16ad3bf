import type { ErrorObject } from "ajv";
import { schemas } from "../schemas/registry.js";
import type { RouteSpec } from "./route.js";
import type { ServiceModule } from "./service-module.js";

/**
 * Output validation, as Prism does it: in the test suite every JSON answer is checked against the
 * schema its route declares for that status (errors against the module's error schema). A mismatch
 * is kept here for the suite's `afterEach` to fail the test, and the answer goes out unchanged.
 */
const mismatches: string[] = [];

export function checkResponse(module: ServiceModule, spec: RouteSpec, status: number, body: unknown): void {
  const declared = spec.responses[status];
  const where = `${module.name} ${spec.method} ${spec.path} → ${status}`;
  if (declared === undefined && status < 400) return void mismatches.push(`${where}: status not declared (declared: ${Object.keys(spec.responses).join(", ")})`);
  const schema = declared === undefined || declared === null ? (status >= 400 ? module.errorSchema : undefined) : declared;
  if (schema === undefined) return void mismatches.push(`${where}: declared without a body, answered with one`);
  if (typeof schema === "object" && ("sse" in schema || "text" in schema)) return void mismatches.push(`${where}: declared as a stream or text, answered with JSON`);
  const errors = schemas().check(schema as string | Record<string, unknown>, body);
  if (errors.length) mismatches.push(`${where}: ${describe(errors)}\n  body: ${preview(body)}`);
}

/** The mismatches since the last call (and forgets them). */
export function takeResponseMismatches(): string[] {
  return mismatches.splice(0);
}

function describe(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}${e.keyword === "additionalProperties" ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ""}`)
    .join("; ");
}

function preview(body: unknown): string {
  try {
    const text = JSON.stringify(body);
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  } catch {
    return "(not serialisable)";
  }
}
