import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";

const FEEDBACK = { key: "k", run_id: null };

describe("fault injection on declared routes (DESIGN §8)", () => {
  const app = createApp({ seed: 3, fixtures: false });
  const mock = mockOf(app);
  beforeEach(() => mock.reset());

  it("answers a scripted status with its body and headers, as often as `times` says, and names it in the journal", async () => {
    const added = await request(app)
      .post("/_mock/faults")
      .send({ id: "busy", match: { method: "POST", path: "/api/v1/feedback" }, fault: { status: { status: 429, body: { detail: "slow down" }, headers: { "Retry-After": "2" } } }, times: 2 });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: "busy", match: { method: "POST", path: "/api/v1/feedback" }, fault: { status: { status: 429, body: { detail: "slow down" }, headers: { "Retry-After": "2" } } }, probability: 1, times: 2, fired: 0 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(app).post("/api/v1/feedback").send(FEEDBACK);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body).toEqual({ detail: "slow down" });
        expect(res.headers["retry-after"]).toBe("2");
      }
    }
    expect(statuses).toEqual([429, 429, 200]);
    // A faulted request records nothing: the handler never ran.
    expect(mock.feedback()).toHaveLength(1);
    expect((await request(app).get("/_mock/faults")).body).toMatchObject({ items: [{ id: "busy", fired: 2 }], count: 1 });
    const journal = (await request(app).get("/_mock/requests?route=feedback.create")).body.items;
    expect(journal.map((e: { status: number; fault: unknown }) => [e.status, e.fault])).toEqual([
      [429, { id: "busy", kind: "status" }],
      [429, { id: "busy", kind: "status" }],
      [200, null],
    ]);
  });

  it("matches on route name, service, headers, a body predicate and the attempt number", async () => {
    mock.faults.add({ match: { route: "feedback.create", headers: { "X-Test": "yes" } }, fault: { status: { status: 503 } } });
    mock.faults.add({ match: { service: "tracing", body: { key: "boom" } }, fault: { status: { status: 502 } } });
    mock.faults.add({ match: { path: "/api/v1/**", method: "GET" }, fault: { status: { status: 500 } }, times: 1 });
    mock.faults.add({ match: { path: "/api/v1/feedback/*", method: "PATCH", attempt: [1, 3] }, fault: { status: { status: 504 } } });
    expect((await request(app).post("/api/v1/feedback").set("X-Test", "yes").send(FEEDBACK)).status).toBe(503);
    expect((await request(app).post("/api/v1/feedback").send({ ...FEEDBACK, key: "boom" })).status).toBe(502);
    expect((await request(app).post("/api/v1/feedback").send(FEEDBACK)).status).toBe(200);
    expect((await request(app).get("/api/v1/info")).status).toBe(500);
    expect((await request(app).get("/api/v1/info")).status).toBe(200);
    const id = mock.feedback()[0]!.id;
    const patches = [];
    for (let i = 0; i < 3; i++) patches.push((await request(app).patch(`/api/v1/feedback/${id}`).send({ score: i })).status);
    expect(patches).toEqual([504, 200, 504]);
  });

  it("delays on the mock's clock (a seeded clock moves by the latency, no real wait)", async () => {
    mock.faults.add({ match: { route: "info.get" }, fault: { latency: { ms: 90_000 } } });
    const before = mock.clock.now().getTime();
    expect((await request(app).get("/api/v1/info")).status).toBe(200);
    expect(mock.clock.now().getTime() - before).toBe(90_000);
  });

  it("draws probabilities from the seed: the same seed fires on the same requests", async () => {
    const pattern = async () => {
      const other = createApp({ seed: 3, fixtures: false });
      mockOf(other).faults.add({ match: { route: "info.get" }, fault: { status: { status: 500 } }, probability: 0.5 });
      const out: number[] = [];
      for (let i = 0; i < 16; i++) out.push((await request(other).get("/api/v1/info")).status);
      return out;
    };
    const first = await pattern();
    expect(await pattern()).toEqual(first);
    expect(first).toContain(500);
    expect(first).toContain(200);
  });

  it("cuts a JSON body in half under its JSON content type (malformed), and drips it on the clock", async () => {
    const malformed = mock.faults.add({ match: { route: "info.get" }, fault: { malformed: {} }, times: 1 });
    const res = await request(app).get("/api/v1/info").buffer(true).parse((r, cb) => {
      let text = "";
      r.on("data", (c: Buffer) => (text += c.toString()));
      r.on("end", () => cb(null, text));
    });
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(() => JSON.parse(res.body as string)).toThrow();
    expect(malformed.fired).toBe(1);
    malformed.remove();
    mock.faults.add({ match: { route: "info.get" }, fault: { drip: { bytes: 64, every_ms: 1000 } } });
    const whole = JSON.stringify((await request(app).get("/api/v1/info")).body);
    const before = mock.clock.now().getTime();
    const dripped = await request(app).get("/api/v1/info");
    expect(JSON.stringify(dripped.body)).toBe(whole);
    const chunks = Math.ceil(Number(dripped.headers["content-length"]) / 64);
    expect(mock.clock.now().getTime() - before).toBe((chunks - 1) * 1000);
  });

  it("cuts and drips answers a route composes from cached record text too (deployment reads)", async () => {
    const created = await request(app).post("/v2/deployments").send({ name: "cut-me", source: "internal_source", source_config: { deployment_type: "prod" }, source_revision_config: { langgraph_config_path: "langgraph.json" }, secrets: [] });
    expect(created.status).toBe(201);
    const path = `/v2/deployments/${created.body.id as string}`;
    // supertest listens on a new port per request, and the answer's custom_url names it.
    const asText = (r: request.Response, cb: (err: Error | null, body: string) => void) => {
      let text = "";
      r.on("data", (c: Buffer) => (text += c.toString()));
      r.on("end", () => cb(null, text.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")));
    };
    const whole = (await request(app).get(path).buffer(true).parse(asText)).body as string;
    expect(JSON.parse(whole)).toMatchObject({ id: created.body.id, name: "cut-me" });
    mock.faults.add({ match: { route: "deployments.get" }, fault: { malformed: {} }, times: 1 });
    const cut = await request(app).get(path).buffer(true).parse(asText);
    expect(cut.headers["content-type"]).toMatch(/^application\/json/);
    // The first half of the answer (the port's digits aside), which no JSON parser reads.
    expect(whole.startsWith(cut.body as string)).toBe(true);
    expect(Math.abs((cut.body as string).length - whole.length / 2)).toBeLessThan(4);
    expect(() => JSON.parse(cut.body as string)).toThrow();
    mock.faults.add({ match: { route: "deployments.get" }, fault: { drip: { bytes: 256, every_ms: 1000 } } });
    const before = mock.clock.now().getTime();
    const dripped = await request(app).get(path).buffer(true).parse(asText);
    expect(dripped.body).toBe(whole);
    expect(mock.clock.now().getTime() - before).toBe((Math.ceil(Number(dripped.headers["content-length"]) / 256) - 1) * 1000);
  });

  it("refuses a bad rule with every problem, an unknown id with 404, and reset clears the rules", async () => {
    const bad = await request(app).post("/_mock/faults").send({ match: { colour: "red" }, fault: { explode: {} }, probability: 2 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((p: { pointer: string }) => p.pointer).sort()).toEqual(["/fault/explode", "/match/colour", "/probability"]);
    expect((await request(app).delete("/_mock/faults/nope")).status).toBe(404);
    mock.faults.add({ fault: { status: { status: 500 } } });
    expect((await request(app).post("/_mock/reset").send({ scope: "faults" })).body).toEqual({ ok: true, scope: "faults" });
    expect(mock.faults.list()).toEqual([]);
    expect((await request(app).get("/api/v1/info")).status).toBe(200);
  });

  it("loads rules given at start (objects or files) and puts them back on reset", async () => {
    const started = createApp({ seed: 1, fixtures: false, faults: [{ id: "always", match: { route: "info.get" }, fault: { status: { status: 418 } } }] });
    expect((await request(started).get("/api/v1/info")).status).toBe(418);
    mockOf(started).faults.clear();
    expect((await request(started).get("/api/v1/info")).status).toBe(200);
    mockOf(started).reset();
    expect(mockOf(started).faults.list()).toEqual([{ id: "always", match: { route: "info.get" }, fault: { status: { status: 418 } }, probability: 1, times: null, fired: 0 }]);
    expect(() => createApp({ faults: [{ fault: {} } as never] })).toThrow(/<fault rule 1>#\/fault/);
  });

  it("never gives an automatic id twice: after a reset, an old handle cannot reach a newer rule", async () => {
    const started = createApp({ seed: 1, fixtures: false, faults: [{ match: { route: "info.get" }, fault: { status: { status: 418 } } }] });
    const add = () => request(started).post("/_mock/faults").send({ match: { route: "threads.get" }, fault: { status: { status: 503 } } });
    const old = mockOf(started).faults.add({ match: { route: "threads.search" }, fault: { status: { status: 500 } } });
    expect(old.id).toBe("fault-2");
    mockOf(started).reset();
    expect(mockOf(started).faults.list().map((r) => r.id)).toEqual(["fault-1"]);
    const again = await add();
    expect([again.status, again.body.id]).toEqual([201, "fault-3"]);
    old.remove();
    expect(old.fired).toBe(0);
    expect(mockOf(started).faults.list().map((r) => r.id)).toEqual(["fault-1", "fault-3"]);
    mockOf(started).faults.add({ id: "fault-4", fault: { status: { status: 500 } } });
    expect((await add()).body.id).toBe("fault-5");
  });
});

describe("connection faults on a real socket", () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMockServer({ seed: 1, fixtures: false });
  });
  afterAll(() => server.close());

  it("resets the connection before headers, or closes it with no reply", async () => {
    const reset = server.control.faults.add({ match: { route: "info.get" }, fault: { reset: {} }, times: 1 });
    const resetError = await fetch(`${server.url}/api/v1/info`).then(() => undefined, (err: Error & { cause?: { code?: string } }) => err.cause?.code);
    expect(resetError).toBe("ECONNRESET");
    expect(reset.fired).toBe(1);
    server.control.faults.add({ match: { route: "info.get" }, fault: { empty: {} }, times: 1 });
    const emptyError = await fetch(`${server.url}/api/v1/info`).then(() => undefined, (err: Error & { cause?: { code?: string; message?: string } }) => err.cause?.code ?? err.cause?.message);
    expect(emptyError).toBe("UND_ERR_SOCKET");
    expect((await fetch(`${server.url}/api/v1/info`)).status).toBe(200);
  });
});
