import express from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { MockContext } from "../../src/context.js";
import { controlPlaneModule } from "../../src/control-plane/index.js";
import { McpFixtureServers } from "../../src/control-plane/mcp-fixture-servers.js";
import { fixtureServersModule } from "../../src/control-plane/mcp-fixture-routes.js";
import { errorHandler } from "../../src/http/fallback.js";
import { Registrar } from "../../src/http/registrar.js";
import { route } from "../../src/http/route.js";
import { readFixtures } from "../../src/store/fixtures.js";

/**
 * A route added to the control-plane module gets the module's API key check, JSON body parsing and
 * FastAPI error style with no other edit (issue 8: a route outside the old PREFIXES list got neither);
 * one added to the fixture-servers module gets that module's policies (no key, JSON or forms).
 */
describe("a route added to a control-plane module", () => {
  let app: express.Express;

  beforeAll(() => {
    const ctx = new MockContext({ seed: 1, apiKey: "sekret" });
    const module = controlPlaneModule(ctx, readFixtures(false));
    const echo = route<{ body: Record<string, unknown> }>({
      name: "test.echo",
      method: "POST",
      path: "/v3/anything-new",
      body: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
      responses: { 200: { type: "object" } },
      handler: ({ body }) => ({ received: body }),
    });
    const fixtureServers = fixtureServersModule(new McpFixtureServers(ctx));
    const formEcho = route<{ body: Record<string, unknown> }>({
      name: "test.form_echo",
      method: "POST",
      path: "/_fixtures/anything-new",
      bodyKind: "json-or-form",
      responses: { 200: { type: "object" } },
      handler: ({ body }) => ({ received: body }),
    });
    app = express();
    const registrar = new Registrar(ctx);
    registrar.add({ ...module, routes: [...module.routes, echo] });
    registrar.add({ ...fixtureServers, routes: [...fixtureServers.routes, formEcho] });
    registrar.mountOn(app);
    app.use(errorHandler(ctx.clock));
  });

  it("in the control plane refuses a request without the API key (401 Invalid token)", async () => {
    await request(app).post("/v3/anything-new").send({ note: "hi" }).expect(401, { detail: "Invalid token" });
    await request(app).post("/v3/anything-new").set("X-Api-Key", "wrong").send({ note: "hi" }).expect(401, { detail: "Invalid token" });
  });

  it("in the control plane parses the JSON body for the handler", async () => {
    await request(app).post("/v3/anything-new").set("X-Api-Key", "sekret").send({ note: "hi" }).expect(200, { received: { note: "hi" } });
  });

  it("in the control plane answers a malformed body and a body that fails its schema in FastAPI's 422 shape", async () => {
    const malformed = await request(app).post("/v3/anything-new").set("X-Api-Key", "sekret").set("Content-Type", "application/json").send('{"note": ');
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({ detail: [{ type: "json_invalid", loc: ["body", 9], msg: "JSON decode error", input: {}, ctx: { error: "Expecting value" } }] });
    await request(app)
      .post("/v3/anything-new")
      .set("X-Api-Key", "sekret")
      .send({ note: 1 })
      .expect(422, { detail: [{ type: "string_type", loc: ["body", "note"], msg: "Input should be a valid string", input: 1 }] });
  });

  it("in the fixture-servers module needs no API key and reads forms and JSON", async () => {
    await request(app).post("/_fixtures/anything-new").type("form").send({ grant_type: "code" }).expect(200, { received: { grant_type: "code" } });
    await request(app).post("/_fixtures/anything-new").send({ grant_type: "code" }).expect(200, { received: { grant_type: "code" } });
  });
});
