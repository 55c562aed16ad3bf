import express from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { MockContext } from "../../src/context.js";
import { agentServer, agentServerModule } from "../../src/agent-server/index.js";
import { errorHandler } from "../../src/http/fallback.js";
import { Registrar } from "../../src/http/registrar.js";
import { route } from "../../src/http/route.js";

/**
 * A route added to the agent server's module is served like every other agent route with no other
 * edit: under the root and a deployment's `custom_url`, behind the API key (403 in the agent
 * server's words), open to browsers, with its body parsed and validated in the agent server's style.
 */
describe("a route added to the agent-server module", () => {
  const KEY = "sk-test";
  let app: express.Express;

  beforeAll(() => {
    const ctx = new MockContext({ seed: 1, fixtures: false, apiKey: KEY });
    const module = agentServerModule(ctx, agentServer(ctx, []));
    const probe = route<{ body: { n: number } }>({
      name: "test.probe",
      method: "POST",
      path: "/probe",
      body: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      responses: { 200: { type: "object", properties: { n: { type: "integer" }, deployment: { type: ["string", "null"] } }, required: ["n", "deployment"], additionalProperties: false } },
      handler: ({ body, scope }) => ({ n: body.n, deployment: scope.mount.deployment_id ?? null }),
    });
    app = express();
    const registrar = new Registrar(ctx);
    registrar.add({ ...module, routes: [...module.routes, probe] });
    registrar.mountOn(app);
    app.use(errorHandler(ctx.clock));
  });

  describe.each([
    ["at the root", "", null],
    ["under a deployment's custom_url", "/agents/dep-7", "dep-7"],
  ])("%s", (_label, prefix, deployment) => {
    const path = `${prefix}/probe`;

    it("refuses a request without the API key, or with a wrong one, as the agent server does (403)", async () => {
      await request(app).post(path).send({ n: 1 }).expect(403, { detail: "Missing authentication headers" });
      await request(app).post(path).set("X-Api-Key", "wrong").send({ n: 1 }).expect(403, { detail: "Invalid token" });
    });

    it("parses the body as JSON whatever its Content-Type and hands the handler the validated value and the mount", async () => {
      const res = await request(app).post(path).set("X-Api-Key", KEY).set("Content-Type", "text/plain").send('{"n": 3}').expect(200);
      expect(res.body).toEqual({ n: 3, deployment });
    });

    it("answers an unreadable or invalid body in the agent server's one-string style", async () => {
      const bad = await request(app).post(path).set("X-Api-Key", KEY).set("Content-Type", "application/json").send('{"n": ').expect(422);
      expect(bad.body.detail).toMatch(/^Invalid JSON body: /);
      await request(app).post(path).set("X-Api-Key", KEY).send({ m: 1 }).expect(422, { detail: "'n' is a required property" });
      await request(app).post(path).set("X-Api-Key", KEY).send({ n: "x" }).expect(422, { detail: '"x" is not of type "integer" (at /n)' });
    });

    it("lets browsers call it: a preflight needs no key, and answers carry the CORS headers", async () => {
      const preflight = await request(app).options(path).set("Origin", "http://app.test").set("Access-Control-Request-Method", "POST").set("Access-Control-Request-Headers", "content-type,x-api-key").expect(200);
      expect(preflight.headers["access-control-allow-origin"]).toBe("*");
      expect(preflight.headers["access-control-allow-headers"]).toBe("content-type,x-api-key");
      const res = await request(app).post(path).set("Origin", "http://app.test").set("X-Api-Key", KEY).send({ n: 1 }).expect(200);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      const refused = await request(app).post(path).set("Origin", "http://app.test").send({ n: 1 }).expect(403);
      expect(refused.headers["access-control-allow-origin"]).toBe("*");
    });
  });

  it("leaves /ok and /info public on both prefixes", async () => {
    for (const prefix of ["", "/agents/dep-7"]) {
      await request(app).get(`${prefix}/ok`).expect(200, { ok: true });
      await request(app).get(`${prefix}/info`).expect(200);
      await request(app).get(`${prefix}/threads/00000000-0000-4000-8000-000000000000`).expect(403, { detail: "Missing authentication headers" });
    }
  });
});
