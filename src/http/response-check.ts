import type { ErrorObject } from "ajv";
import { schemas } from "../schemas/registry.js";
import { sseEventsOf, type ResponseSpec, type RouteSpec, type SchemaRef } from "./route.js";
import type { ServiceModule } from "./service-module.js";

/**
 * Output validation, as Prism does it: a route's answers are checked against what it declares for
 * their status (errors against the module's error schema), and a stream's event payloads against
 * what it declares for its events. The project's test suite fails a test that got a mismatch
 * (`takeResponseMismatches()` in its afterEach); a user who turns checks on sees a warning and the
 * journal entry's note. Answers go out unchanged either way.
 */
const mismatches: string[] = [];

/** The mismatches collected since the last call (and forgets them). */
export function takeResponseMismatches(): string[] {
  return mismatches.splice(0);
}

/** Where a mismatch goes: collected for the test suite (AGENT_PLATFORM_MOCK_CHECK_RESPONSES=1), else a warning. */
export function reportMismatch(message: string): void {
  if (process.env.AGENT_PLATFORM_MOCK_CHECK_RESPONSES === "1") mismatches.push(message);
  else console.warn(`agent-platform-mock: an answer does not fit its declaration: ${message}`);
}

/** Why a JSON answer does not fit the route's declaration, or undefined when it does. */
export function jsonMismatch(module: ServiceModule, spec: RouteSpec, status: number, body: unknown): string | undefined {
  const declared = spec.responses[status];
  const where = `${module.name} ${spec.method} ${spec.path} → ${status}`;
  if (declared === undefined && status < 400) return `${where}: status not declared (declared: ${Object.keys(spec.responses).join(", ")})`;
  const schema = declared === undefined || declared === null ? (status >= 400 ? module.errorSchema : undefined) : declared;
  if (schema === undefined) return `${where}: declared without a body, answered with one`;
  if (isStreamOrText(schema)) return `${where}: declared as a stream or text, answered with JSON`;
  return fits(where, schema, body);
}

/** Why one event of a stream does not fit what the route declares for its events, or undefined. */
export function eventMismatch(module: ServiceModule, spec: RouteSpec, status: number, frame: string): string | undefined {
  const declared = spec.responses[status];
  const where = `${module.name} ${spec.method} ${spec.path} → ${status} (stream)`;
  if (declared === undefined || declared === null || (typeof declared === "object" && "text" in declared)) return `${where}: status not declared as a stream`;
  const event = parseFrame(frame);
  if (event === undefined) return undefined;
  const sse = sseEventsOf(declared);
  const schema = sse === undefined ? declared : sse === true ? undefined : (sse.events?.[event.name] ?? sse.data);
  if (schema === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return `${where}: event ${event.name}'s data is not JSON\n  data: ${event.data.slice(0, 400)}`;
  }
  return fits(`${where} event ${event.name}`, schema as SchemaRef, data);
}

function isStreamOrText(schema: Exclude<ResponseSpec, null>): boolean {
  return typeof schema === "object" && ("sse" in schema || "text" in schema);
}

function fits(where: string, schema: SchemaRef, body: unknown): string | undefined {
  const errors = schemas().check(schema as string | Record<string, unknown>, body);
  return errors.length ? `${where}: ${describe(errors)}\n  body: ${preview(body)}` : undefined;
}

/** An SSE frame's event name (`message` when it names none) and data lines; undefined for a frame without data (a comment). */
function parseFrame(frame: string): { name: string; data: string } | undefined {
  let name = "message";
  const data: string[] = [];
  for (const line of frame.split(/\r\n|\n|\r/)) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  return data.length ? { name, data: data.join("\n") } : undefined;
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
