import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MockContext } from "../../src/context.js";
import { detailError } from "../../src/http/http-error.js";
import { errorHandler } from "../../src/http/fallback.js";
import { fastApiInvalid } from "../../src/http/pydantic-issues.js";
import { Registrar } from "../../src/http/registrar.js";
import { takeResponseMismatches } from "../../src/http/response-check.js";
import { hangUp, object, reply, route, sse, text, UUID } from "../../src/http/route.js";
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
        name: "things.events",
        method: "GET",
        path: "/events",
        responses: { 200: { sse: { events: { tick: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } } } } },
        handler: () =>
          sse((out) => {
            out.event('event: tick\r\ndata: {"n":1}\r\n\r\n');
            out.event('event: tick\r\ndata: {"n":"two"}\r\n\r\n');
            out.event('event: other\r\ndata: [1]\r\n\r\n');
            out.flushed(() => out.end());
          }),
      }),
      route({
        name: "things.page",
        method: "GET",
        path: "/page",
        responses: { 200: { text: "text/plain" } },
        handler: () => text("plain words", "text/plain; charset=utf-8", { "X-Kind": "page" }),
      }),
      route({
        name: "things.gone",
        method: "GET",
        path: "/gone",
        responses: { 200: { type: "object" } },
        handler: async () => hangUp(),
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
  app.locals.ctx = ctx;
  app.use(ctx.journal.middleware());
  const registrar = new Registrar(ctx);
  registrar.add(module);
  registrar.mountOn(app);
  app.use(errorHandler(ctx.clock));
  app.locals.registrar = registrar;
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
    expect(ok.headers["access-control-allow-origin"]).toBe("*");
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

  it("writes what handlers return: a stream, text with its own type, a hang-up", async () => {
    const app = appWith();
    const events = await request(app).get("/events").buffer(true).parse((res, done) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => done(null, body));
    });
    expect([events.status, events.headers["content-type"], events.body]).toEqual([200, "text/event-stream; charset=utf-8", 'event: tick\r\ndata: {"n":1}\r\n\r\nevent: tick\r\ndata: {"n":"two"}\r\n\r\nevent: other\r\ndata: [1]\r\n\r\n']);
    const page = await request(app).get("/page");
    expect([page.status, page.headers["content-type"], page.headers["x-kind"], page.text]).toEqual([200, "text/plain; charset=utf-8", "page", "plain words"]);
    await expect(request(app).get("/gone")).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it("in tests, records each stream event that does not fit the payload its route declares", async () => {
    await request(appWith({ checkResponses: true })).get("/events").buffer(true);
    const mismatches = takeResponseMismatches();
    expect(mismatches).toHaveLength(1);
    expect(mismatches[0]).toMatch(/^example GET \/events → 200 \(stream\) event tick: \/n must be integer/);
  });

  it("outside tests, warns of a mismatch and notes it on the request's journal entry", async () => {
    vi.stubEnv("AGENT_PLATFORM_MOCK_CHECK_RESPONSES", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const app = appWith({ checkResponses: true });
      const res = await request(app).get("/wrong");
      expect(res.body).toEqual({ ok: "yes", extra: 1 });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^agent-platform-mock: an answer does not fit its declaration: example GET \/wrong → 200: /);
      const [entry] = (app.locals.ctx as MockContext).journal.list();
      expect(entry?.note).toEqual({ response_mismatches: [expect.stringContaining("/ok must be boolean")] });
      expect(takeResponseMismatches()).toEqual([]);
    } finally {
      warn.mockRestore();
      vi.unstubAllEnvs();
    }
  });

  it("runs a request through the same stages in-process (inject)", async () => {
    const app = appWith({ apiKey: "k" });
    const registrar = app.locals.registrar as Registrar;
    const refused = await registrar.inject({ method: "POST", url: `/things/${id}`, body: JSON.stringify({ name: "x" }) });
    expect([refused.status, JSON.parse(refused.body)]).toEqual([401, { detail: "Invalid token" }]);
    const ok = await registrar.inject({ method: "POST", url: `/agents/d/things/${id}?n=4`, headers: { "X-Api-Key": "k", "Content-Type": "application/json" }, body: JSON.stringify({ name: "x" }) });
    expect([ok.status, ok.headers["content-type"], JSON.parse(ok.body)]).toEqual([200, "application/json; charset=utf-8", { params: { thing_id: id.toLowerCase() }, query: { n: 4 }, body: { name: "x" }, mount: { deployment_id: "d" } }]);
    const invalid = await registrar.inject({ method: "POST", url: "/things/nope", headers: { "X-Api-Key": "k" }, body: "{}" });
    expect(invalid.status).toBe(422);
    expect((await registrar.inject({ method: "GET", url: "/nothing" })).status).toBe(404);
  });
});

describe("inject", () => {
  it("fails as fetch does when the route hangs up", async () => {
    const app = appWith();
    await expect((app.locals.registrar as Registrar).inject({ method: "GET", url: "/gone" })).rejects.toThrow("the mock closed the connection without an answer");
  });
});
