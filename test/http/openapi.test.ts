import request from "supertest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp, mockOf } from "../../src/index.js";
import { contextOf } from "../../src/mock-control.js";

/** The OpenAPI documents are generated from the route declarations and are valid OpenAPI 3.1. */
describe("GET /openapi.json and GET /_mock/openapi.json", () => {
  const app = createApp({ seed: 1 });
  let simulated: Record<string, any>;
  let admin: Record<string, any>;

  beforeAll(async () => {
    simulated = (await request(app).get("/openapi.json").expect(200)).body;
    admin = (await request(app).get("/_mock/openapi.json").expect(200)).body;
  });

  it("are valid OpenAPI 3.1 documents", async () => {
    for (const doc of [simulated, admin]) {
      const result = await new Validator().validate(structuredClone(doc));
      expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(doc.openapi).toBe("3.1.0");
    }
  });

  it("list every declared route once per mount prefix, tagged by its service", () => {
    const routes = contextOf(mockOf(app)).routes.list().filter((r) => r.method !== "HEAD");
    const operations = (doc: Record<string, any>) =>
      Object.entries(doc.paths as Record<string, Record<string, { tags: string[] }>>).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => ({ path, method: m.toUpperCase(), tag: op.tags[0] })));
    const documented = [...operations(simulated), ...operations(admin)].map((o) => `${o.method} ${o.path.replace(/\{([^}]+)\}/g, ":$1")}`);
    const declared = routes.map((r) => `${r.method} ${r.path}`);
    // Every route served through the registrar is documented (routers not yet declared are not).
    for (const op of documented) expect(declared).toContain(op);
    expect(new Set(operations(simulated).map((o) => o.tag))).toContain("tracing");
    expect(new Set(operations(admin).map((o) => o.tag))).toEqual(new Set(["admin"]));
    expect(simulated.paths["/api/v1/feedback/tokens/{token}"].post).toMatchObject({
      operationId: "feedback_tokens.submit",
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
      requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/SubmitBody" } } } },
      responses: { 200: { content: { "application/json": { schema: { $ref: "#/components/schemas/Feedback" } } } } },
    });
    expect(simulated.paths["/api/v1/feedback"].get.security).toEqual([{ apiKey: [] }]);
    expect(simulated.paths["/api/v1/feedback/tokens/{token}"].post.security).toBeUndefined();
  });
});
