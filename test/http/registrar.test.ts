import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { MockContext } from "../../src/context.js";
import { detailError } from "../../src/http/http-error.js";
import { errorHandler } from "../../src/http/fallback.js";
import { fastApiInvalid } from "../../src/http/pydantic-issues.js";
import { Registrar } from "../../src/http/registrar.js";
import { takeResponseMismatches } from "../../src/http/response-check.js";
import { object, reply, route, UUID } from "../../src/http/route.js";
import type { ServiceModule } from "../../src/http/service-module.js";

/** A module as every service declares one, with one route per behaviour under test. */
function appWith(options: { apiKey?: string; checkResponses?: boolean } = {}) {
  const ctx = new MockContext({ seed: 1, ...options });
  const module: ServiceModule = {
    name: "example",
    prefixes: ["", "/agents/{deployment_id}"],
    authenticate: options.apiKey ? (h) => (h["x-api-key"] === options.apiKey ? undefined : detailError(401, "Invalid token")) : undefined,
    cors: true,
    bodyError: (p) => detailError(422, `bad body: ${p.kind}`),
    invalid: fastApiInvalid,
    errorSchema: "common/errors.json#/$defs/FastApiError",
    routes: [
      route<{ params: { thing_id: string }; query: { n: number; tags?: string[] }; body: { name: string } }>({
        name: "things.update",
        method: "POST",
        path: "/things/{thing_id}",
        params: object({ thing_id: UUID }),
        query: { type: "object", properties: { n: { type: "integer", default: 3 }, tags: { type: "array", items: { type: "string" } } } },
        body: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
        responses: { 200: { type: "object" } },
        handler: ({ params, query, body, scope }) => ({ params, query, body, mount: scope.mount }),
      }),
      route({
        name: "things.wrong",
        method: "GET",
        path: "/wrong",
        responses: { 200: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false } },
        handler: () => ({ ok: "yes", extra: 1 }),
      }),
      route({
        name: "things.created",
        method: "PUT",
        path: "/things",
        responses: { 201: { type: "object" }, 204: null },
        handler: () => reply(204),
      }),
    ],
  };
  const app = express();
  app.set("query parser", "simple");
  app.use(ctx.journal.middleware());
  const registrar = new Registrar(ctx);
  registrar.add(module);
  registrar.mountOn(app);
  app.use(errorHandler(ctx.clock));
  return app;
}

afterEach(() => {
  takeResponseMismatches();
});

describe("the route registrar", () => {
  const id = "0198C0DE-AAAA-4BBB-8CCC-DDDDEEEEFFFF";

  it("hands the handler converted, defaulted and canonical input under every mount prefix", async () => {
    const app = appWith();
    for (const prefix of ["", "/agents/dep-1"]) {
      const res = await request(app).post(`${prefix}/things/${id}?tags=a&tags=b&ignored=1`).send({ name: "x", extra: true });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        params: { thing_id: id.toLowerCase() },
        query: { n: 3, tags: ["a", "b"] },
        body: { name: "x" },
        mount: prefix ? { deployment_id: "dep-1" } : {},
      });
    }
  });

  it("lists every problem of path, query and body in one answer, path first", async () => {
    const res = await request(appWith()).post("/things/nope?n=x").send({ name: 5 });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [["path", "thing_id"], "uuid_parsing"],
      [["query", "n"], "int_parsing"],
      [["body", "name"], "string_type"],
    ]);
  });

  it("gives a new route the module's authentication, body parsing and CORS with no other edit", async () => {
    const app = appWith({ apiKey: "k" });
    expect((await request(app).post(`/things/${id}`).send({ name: "x" })).status).toBe(401);
    expect((await request(app).post(`/agents/d/things/${id}`).send({ name: "x" })).status).toBe(401);
    const ok = await request(app).post(`/things/${id}`).set("X-Api-Key", "k").set("Origin", "http://localhost:3000").send({ name: "x" });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBeDefined();
    const malformed = await request(app).post(`/things/${id}`).set("X-Api-Key", "k").set("Content-Type", "application/json").send('{"name": ');
    expect([malformed.status, malformed.body]).toEqual([422, { detail: "bad body: malformed" }]);
    const preflight = await request(app).options(`/things/${id}`).set("Origin", "http://localhost:3000").set("Access-Control-Request-Method", "POST");
    expect(preflight.status).toBe(200);
  });

  it("answers 405 with Allow for a known path and 404 for an unknown one", async () => {
    const app = appWith();
    const res = await request(app).get(`/things/${id}`);
    expect([res.status, res.headers.allow]).toEqual([405, "POST"]);
    expect((await request(app).get("/nothing")).status).toBe(404);
  });

  it("writes a reply() with its own status and no body", async () => {
    const res = await request(appWith()).put("/things");
    expect([res.status, res.text]).toEqual([204, ""]);
  });

  it("in tests, records a response that does not fit its declared schema (and sends it unchanged)", async () => {
    const res = await request(appWith({ checkResponses: true })).get("/wrong");
    expect(res.body).toEqual({ ok: "yes", extra: 1 });
    const mismatches = takeResponseMismatches();
    expect(mismatches).toHaveLength(1);
    expect(mismatches[0]).toMatch(/^example GET \/wrong → 200: /);
    expect(mismatches[0]).toContain("/ok must be boolean");
    expect(mismatches[0]).toContain("must NOT have additional properties (extra)");
  });
});
