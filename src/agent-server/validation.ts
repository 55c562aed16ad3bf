import type { ErrorObject } from "ajv";
import { HttpError, type ValidationIssue } from "../http/http-error.js";
import { validateQuery } from "../http/validate.js";
import { schemas } from "../schemas/registry.js";
import { agentErrors } from "./errors.js";

/**
 * Request checks with the agent server's error shape. The real server validates bodies with
 * jsonschema and answers 422 `{"detail": "<first error>"}` — one string, not FastAPI's list.
 * Defaults are filled into a copy, so the body as sent stays untouched for the journal and /_mock/runs.
 */
export function readBody<T>(ref: string, body: unknown): T {
  const copy = body === undefined ? null : structuredClone(body);
  const errors = schemas().checkRequest(ref, copy);
  if (errors.length) throw agentErrors.invalidBody(jsonschemaMessage(errors));
  return copy as T;
}

/** Query strings: converted and defaulted as the schema says; a bad value is a one-string 422. */
export function readQuery<T>(ref: string, query: Record<string, unknown>): T {
  try {
    return validateQuery<T>(ref, query);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const issue = ((err.body as { detail: ValidationIssue[] }).detail ?? [])[0];
    throw agentErrors.invalidBody(issue ? `${issue.loc.slice(1).join(".")}: ${issue.msg}` : "Invalid query");
  }
}

function jsonschemaMessage(errors: readonly ErrorObject[]): string {
  const e = errors.find((x) => x.keyword === "anyOf") ?? (errors[0] as ErrorObject);
  const value = JSON.stringify(e.data) ?? "null";
  const where = e.instancePath ? ` (at ${e.instancePath})` : "";
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `'${String(p.missingProperty)}' is a required property`;
    case "type":
      return `${value} is not of type "${String(p.type)}"${where}`;
    case "enum":
      return `${value} is not one of ${JSON.stringify(p.allowedValues)}${where}`;
    case "format":
      return `${value} is not a "${String(p.format)}"${where}`;
    case "anyOf":
      return `${value} is not valid under any of the given schemas${where}`;
    default:
      return `${value} ${e.message ?? "is not valid"}${where}`;
  }
}
