import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/http/http-error.js";
import { readPart } from "../../src/http/request-input.js";
import { fastApiInvalid } from "../../src/http/pydantic-issues.js";
import request from "supertest";
import { createApp } from "../../src/index.js";

const LIST_QUERY = "control-plane/deployment.json#/$defs/DeploymentListQuery";

/** What the registrar does with one part of a request, answered in the control plane's FastAPI style. */
function validateQuery<T = Record<string, unknown>>(ref: string, query: Record<string, unknown>): T {
  const { value, problem } = readPart("query", ref, query);
  if (problem) throw fastApiInvalid([problem]);
  return value as T;
}

function validateBody<T = unknown>(ref: string, body: unknown): T {
  if (body === undefined) throw fastApiInvalid([{ part: "body", schema: ref, data: undefined, errors: [], missing: true }]);
  const { value, problem } = readPart("body", ref, body);
  if (problem) throw fastApiInvalid([problem]);
  return value as T;
}

function issues(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(422);
    return ((err as HttpError).body as { detail: unknown }).detail;
  }
  throw new Error("expected a validation error");
}

describe("query validation answers like FastAPI", () => {
  it("converts and defaults valid values", () => {
    expect(validateQuery(LIST_QUERY, { limit: "5", remote_reconciled: "true", name_contains: "chat" })).toEqual({
      limit: 5,
      offset: 0,
      remote_reconciled: true,
      name_contains: "chat",
    });
  });

  it("a repeated scalar parameter takes its last value", () => {
    expect(validateQuery<{ limit: number }>(LIST_QUERY, { limit: ["5", "7"] }).limit).toBe(7);
  });

  it("limit out of range and a bad integer give pydantic entries located at the parameter", () => {
    expect(issues(() => validateQuery(LIST_QUERY, { limit: "0" }))).toEqual([
      { type: "greater_than_equal", loc: ["query", "limit"], msg: "Input should be greater than or equal to 1", input: 0, ctx: { ge: 1 } },
    ]);
    expect(issues(() => validateQuery(LIST_QUERY, { limit: "101" }))).toEqual([
      { type: "less_than_equal", loc: ["query", "limit"], msg: "Input should be less than or equal to 100", input: 101, ctx: { le: 100 } },
    ]);
    expect(issues(() => validateQuery(LIST_QUERY, { offset: "abc" }))).toEqual([
      { type: "int_parsing", loc: ["query", "offset"], msg: "Input should be a valid integer, unable to parse string as an integer", input: "abc" },
    ]);
  });

  it("an enum parameter lists the allowed values", () => {
    expect(issues(() => validateQuery(LIST_QUERY, { deployment_type: "serverless" }))).toEqual([
      { type: "enum", loc: ["query", "deployment_type"], msg: "Input should be 'dev_free', 'dev' or 'prod'", input: "serverless", ctx: { expected: "'dev_free', 'dev' or 'prod'" } },
    ]);
  });

  it("a boolean parameter that is not one takes bool_parsing", () => {
    expect(issues(() => validateQuery(LIST_QUERY, { remote_reconciled: "maybe" }))).toEqual([
      { type: "bool_parsing", loc: ["query", "remote_reconciled"], msg: "Input should be a valid boolean, unable to interpret input", input: "maybe" },
    ]);
  });
});

describe("body validation answers like FastAPI", () => {
  const CREATE = "control-plane/deployment.json#/$defs/DeploymentCreateRequest";

  it("lists every missing required field", () => {
    const detail = issues(() => validateBody(CREATE, { name: "x", source: "github" })) as { type: string; loc: unknown[]; msg: string }[];
    expect(detail.map((d) => [d.type, d.loc, d.msg])).toEqual([
      ["missing", ["body", "source_config"], "Field required"],
      ["missing", ["body", "source_revision_config"], "Field required"],
      ["missing", ["body", "secrets"], "Field required"],
    ]);
  });

  it("a body that is not an object is model_attributes_type", () => {
    expect(issues(() => validateBody(CREATE, [1, 2]))).toEqual([
      { type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input: [1, 2] },
    ]);
  });

  it("wrong types inside nested objects point into them", () => {
    const detail = issues(() =>
      validateBody(CREATE, { name: "x", source: "github", source_config: { build_on_push: "often" }, source_revision_config: {}, secrets: [{ name: 1, value: "v" }] }),
    ) as { type: string; loc: unknown[] }[];
    expect(detail.map((d) => [d.type, d.loc])).toEqual([
      ["bool_parsing", ["body", "source_config", "build_on_push"]],
      ["string_type", ["body", "secrets", 0, "name"]],
    ]);
  });

  it("drops undeclared properties of closed objects instead of refusing them, as pydantic does (on a copy)", () => {
    const body = { name: "x", source: "github", source_config: {}, source_revision_config: {}, secrets: [{ name: "A", value: "b", extra: true }] };
    const read = validateBody<typeof body>(CREATE, body);
    expect(read.secrets[0]).toEqual({ name: "A", value: "b" });
    // The request as sent stays intact for the journal.
    expect(body.secrets[0]).toEqual({ name: "A", value: "b", extra: true });
  });
});

// The registrar reads `format: uuid` path parameters (src/http/request-input.ts): through a route.
describe("uuid path parameters", () => {
  const app = createApp({ seed: 1 });

  it("accepts and lower-cases a UUID", async () => {
    const res = await request(app).get("/v2/deployments/8F2D1C3B-4A5E-4F6D-8B7C-9E0A1B2C3D4E").expect(404);
    expect(res.body).toEqual({ detail: "Deployment ID 8f2d1c3b-4a5e-4f6d-8b7c-9e0a1b2c3d4e not found." });
  });

  it("refuses anything else with uuid_parsing at the parameter", async () => {
    expect((await request(app).get("/v2/deployments/not-a-uuid").expect(422)).body.detail).toEqual([
      {
        type: "uuid_parsing",
        loc: ["path", "deployment_id"],
        msg: "Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1",
        input: "not-a-uuid",
        ctx: { error: "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1" },
      },
    ]);
    expect((await request(app).get("/v2/deployments/1234").expect(422)).body.detail).toEqual([
      expect.objectContaining({ msg: "Input should be a valid UUID, invalid length: expected length 32 for simple format, found 4" }),
    ]);
  });
});
