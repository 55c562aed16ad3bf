import request from "supertest";
import { get, request as httpRequest, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";
import { FEED_BUDGET_BYTES, FEED_MAX_CLIENTS } from "../../src/admin/inspector-routes.js";
import { protocolSessions } from "../../src/agent-server/protocol-session.js";
import { contextOf } from "../../src/mock-control.js";
import { until } from "../support/until.js";
import { runsIn } from "../../src/agent-server/runs.js";

/** Issue 28, defects 8 (the services' part) and 9: memory one client can hold, and the small ones. */

/** A change-feed client that reads everything it is sent. */
function follow(url: string): Promise<{ res: IncomingMessage; text: () => string; bytes: () => number }> {
  return new Promise((resolve, reject) => {
    get(`${url}/_mock/events`, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        bytes += chunk.length;
      });
      resolve({ res, text: () => Buffer.concat(chunks).toString("utf8"), bytes: () => bytes });
    }).on("error", reject);
  });
}

describe("the change feed (GET /_mock/events)", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 1, fixtures: false });
  });
  afterAll(() => mock.close());

  it("drops a client that stops reading once its unread events pass the byte budget; readers keep theirs", async () => {
    const reader = await follow(mock.url);
    const { port } = new URL(mock.url);
    const stalled: Socket = connect(Number(port), "127.0.0.1");
    stalled.pause();
    await new Promise<void>((r) => stalled.once("connect", () => r()));
    stalled.write(`GET /_mock/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await until(() => reader.text().includes("request.journaled") || contextOf(mock.control).events.listening);
    // Changes of ~1 MB each (a journaled request can carry that much), made in-process so that the
    // test spends its time on the feed: 40 of them are far past the budget and the socket buffers.
    const filler = "x".repeat(1_000_000);
    for (let i = 0; i < 40; i++) {
      const before = reader.bytes();
      contextOf(mock.control).events.emit("test.filler", () => ({ i, filler }));
      await until(() => reader.bytes() >= before + filler.length);
    }
    // The last change, through a service.
    const last = (await request(mock.url).post("/api/v1/feedback").send({ run_id: "0198c0de-0000-7000-8000-000000000001", key: "last" }).expect(200)).body.id as string;
    await until(() => reader.text().includes(last));
    // The stalled client was cut off: reading now, it gets what was buffered, then the end, without the last change.
    stalled.resume();
    let received = "";
    stalled.setEncoding("utf8");
    stalled.on("data", (chunk: string) => (received += chunk));
    await new Promise<void>((r) => stalled.once("close", () => r()));
    expect(received).toMatch(/^HTTP\/1.1 200 OK/);
    expect(received).not.toContain(last);
    expect(Buffer.byteLength(received)).toBeLessThan(40 * filler.length);
    expect(FEED_BUDGET_BYTES).toBe(8 * 1024 * 1024);
    reader.res.destroy();
  }, 60_000);

  it(`serves at most ${FEED_MAX_CLIENTS} clients at once; another is told to come back (503, Retry-After)`, async () => {
    const clients = [];
    for (let i = 0; i < FEED_MAX_CLIENTS; i++) clients.push(await follow(mock.url));
    expect(clients.every((c) => c.res.statusCode === 200)).toBe(true);
    const refused = await request(mock.url).get("/_mock/events").expect(503);
    expect(refused.body).toEqual({ detail: `The change feed already has ${FEED_MAX_CLIENTS} clients; close one (an inspector tab) and reconnect` });
    expect(refused.headers["retry-after"]).toBe("1");
    const first = clients.shift();
    first?.res.destroy();
    await until(() => first?.res.destroyed === true);
    let again: Awaited<ReturnType<typeof follow>> | undefined;
    // The server learns of the close asynchronously: retry as a client told to would.
    while (!again) {
      const attempt = await follow(mock.url);
      if (attempt.res.statusCode === 200) again = attempt;
      else attempt.res.destroy();
    }
    for (const c of [...clients, again]) c.res.destroy();
  });

  it("a HEAD gets the stream's head and an end, and holds no client's place", async () => {
    for (let i = 0; i < FEED_MAX_CLIENTS + 1; i++) {
      const head = await request(mock.url).head("/_mock/events").expect(200);
      expect(head.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    }
    const client = await follow(mock.url);
    expect(client.res.statusCode).toBe(200);
    client.res.destroy();
  });
});

describe("Protocol v2 sessions exist only for threads", () => {
  const approve = {
    name: "approve",
    match: { assistant_id: "agent" },
    events: [{ event: "values", data: { ok: true } }],
  };
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 1, fixtures: false, scenarios: [approve] });
  });
  afterAll(() => mock.close());
  const sessions = () => protocolSessions(contextOf(mock.control));
  const command = (tid: string, method: string, params: object = {}) => request(mock.url).post(`/threads/${tid}/commands`).send({ id: 1, method, params }).expect(200);
  const someId = (n: number) => `6f1c5b9e-2d4a-4c3b-9a8e-${String(n).padStart(12, "0")}`;

  it("commands naming threads that do not exist leave no session behind", async () => {
    for (let i = 0; i < 50; i++) {
      await command(someId(i), "agent.getTree");
      await command(someId(i), "input.respond", { interrupt_id: "x", response: 1 });
      await command(someId(i), "run.start", { assistant_id: "no-such-graph" });
    }
    // The first test of a fresh mock: nothing else made a session.
    expect(sessions().size).toBe(0);
  });

  it("an event stream may wait for a thread; its session goes when it closes", async () => {
    const tid = someId(900);
    const req = httpRequest(`${mock.url}/threads/${tid}/stream/events`, { method: "POST", headers: { "Content-Type": "application/json" } });
    req.on("error", () => undefined);
    req.end(JSON.stringify({ channels: ["values"] }));
    const res = await new Promise<IncomingMessage>((resolve) => req.on("response", resolve));
    expect(res.statusCode).toBe(200);
    await until(() => sessions().get(tid)?.sinkCount === 1);
    req.destroy();
    await until(() => sessions().get(tid) === undefined);
  });

  it("a thread's session, with its event buffer, goes with the thread", async () => {
    const tid = someId(901);
    const started = await command(tid, "run.start", { assistant_id: "agent", input: { go: true } });
    expect(started.body.type).toBe("success");
    await until(() => (sessions().get(tid)?.seq ?? 0) > 0 && runsIn(contextOf(mock.control)).filter((r) => r.thread_id === tid && r.status === "success").length === 1);
    const count = sessions().size;
    await request(mock.url).delete(`/threads/${tid}`).expect(204);
    await command(someId(902), "agent.getTree");
    expect(sessions().get(tid)).toBeUndefined();
    expect(sessions().size).toBe(count - 1);
  });
});

describe("POST /runs/batch has an item cap", () => {
  it("more than 100 runs is a 422 naming the limit, and none is created", async () => {
    const app = createApp({ seed: 1, fixtures: false, scenarios: [{ name: "s", events: [{ event: "values", data: {} }] }] });
    const runs = Array.from({ length: 101 }, () => ({ assistant_id: "agent" }));
    const res = await request(app).post("/runs/batch").send(runs).expect(422);
    expect(res.body).toEqual({ detail: "101 items is too long: at most 100 are allowed" });
    expect(runsIn(contextOf(mockOf(app))).size).toBe(0);
    expect((await request(app).post("/runs/batch").send(runs.slice(1)).expect(200)).body).toHaveLength(100);
  });
});

describe("metadata filters cost what their lists hold, not its square", () => {
  it("a search for 60,000 listed numbers in a thread's 60,000 (compared pairwise, it took a minute)", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    const listed = Array.from({ length: 60_000 }, (_, i) => i);
    const thread = (await request(app).post("/threads").send({ metadata: { a: [...listed, { k: 1 }], b: "x" } }).expect(200)).body;
    await request(app).post("/threads").send({ metadata: { a: [1, 2] } }).expect(200);
    const found = await request(app).post("/threads/search").send({ metadata: { a: [...listed].reverse() } }).expect(200);
    expect(found.body.map((t: { thread_id: string }) => t.thread_id)).toEqual([thread.thread_id]);
    // Lists and objects in the wanted list are still matched by containment, not equality.
    const nested = await request(app).post("/threads/search").send({ metadata: { a: [{}, 5], b: "x" } }).expect(200);
    expect(nested.body).toHaveLength(1);
    expect((await request(app).post("/threads/search").send({ metadata: { a: [{ k: 2 }] } }).expect(200)).body).toEqual([]);
    expect((await request(app).post("/threads/search").send({ metadata: { a: [60_000] } }).expect(200)).body).toEqual([]);
  });
});

describe("the small ones", () => {
  it("journal redaction reads keys as the service does: JSON escapes and form encoding", async () => {
    const app = createApp({ seed: 1 });
    const json = '{"provider_id": "p", "client\\u005fsecret": "json-secret", "CLIENT_SECRET": 7}';
    await request(app).post("/v2/auth/providers").set("Content-Type", "application/json").send(json);
    await request(app).post("/_fixtures/mcp/github-tools/token").type("form").send("grant_type=client_credentials&client%5Fsecret=form-secret&client_id=c");
    const journal = JSON.stringify((await request(app).get("/_mock/requests").expect(200)).body);
    expect(journal).not.toContain("json-secret");
    expect(journal).not.toContain("form-secret");
    expect(journal).not.toMatch(/"CLIENT_SECRET":7/);
    expect(journal).toContain("[redacted]");
    expect(journal).toContain("client_credentials");
  });

  it("journal redaction hides a deployment's secret values, whole or cut short, and keeps their names", async () => {
    const app = createApp({ seed: 1 });
    const secrets = [{ name: "OPENAI_API_KEY", value: "sk-live-1" }, { name: "LIST", value: '["sk-live-2"]' }];
    await request(app).post("/v2/deployments").send({ name: "d", source: "external_docker", secrets, note: { value: "kept" } });
    await request(app).post("/v2/deployments").set("Content-Type", "application/json").send('{"secr\\u0065ts": [{"name": "E", "value": "sk-live-3"}], "value": "kept too"}');
    const [whole, escaped] = mockOf(app).requests().filter((e) => e.method === "POST");
    expect(whole?.body).toMatchObject({ secrets: [{ name: "OPENAI_API_KEY", value: "[redacted]" }, { name: "LIST", value: "[redacted]" }], note: { value: "kept" } });
    expect(escaped?.body).toEqual({ secrets: [{ name: "E", value: "[redacted]" }], value: "kept too" });
    // A preview cut inside the list is redacted to its end.
    const cut = createApp({ seed: 1, journal: { maxBodyBytes: 60 } });
    await request(cut).post("/v2/deployments").send({ secrets: [{ name: "A", value: "sk-live-4" }, { name: "B", value: "sk-live-5-is-long" }] });
    const preview = (mockOf(cut).requests()[0]?.body as { preview: string }).preview;
    expect(preview).toContain('{"name":"A","value":"[redacted]"}');
    expect(preview).not.toMatch(/sk-/);
  });

  it("fault rules with a 1xx status or headers with CR/LF or a bad name are refused; good ones still fire", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    for (const status of [{ status: 100 }, { status: 103 }, { status: 200, headers: { "X-Ok": "a\r\nSet-Cookie: x=1" } }, { status: 200, headers: { "Bad Name": "v" } }, { status: 200, headers: { "X-Nul": "a\u0000b" } }]) {
      const res = await request(app).post("/_mock/faults").send({ fault: { status } });
      expect([res.status, JSON.stringify(status)]).toEqual([422, JSON.stringify(status)]);
    }
    expect((await request(app).get("/_mock/faults").expect(200)).body.count).toBe(0);
    expect(() => mockOf(app).faults.add({ fault: { status: { status: 101 } } })).toThrow();
    await request(app).post("/_mock/faults").send({ match: { route: "threads.create" }, fault: { status: { status: 429, headers: { "Retry-After": "2", "X-Tab": "a\tb" } } } }).expect(201);
    const hit = await request(app).post("/threads").send({}).expect(429);
    expect([hit.headers["retry-after"], hit.headers["x-tab"]]).toEqual(["2", "a\tb"]);
  });
});
