import request from "supertest";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Express } from "express";
import { createApp, startMockServer, type MockServer } from "../../src/index.js";
import { StreamWriter } from "../../src/http/stream-writer.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

/**
 * Regression tests for issue 11's network cases: other web pages and hosts, slow clients, clients
 * that do not read, and outbound fetches (DESIGN §11, docs/security.md).
 */
describe("other origins", () => {
  let app: Express;
  let open: Express;
  beforeAll(() => {
    app = createApp({ seed: 1, fixtures: false });
    open = createApp({ seed: 1, fixtures: false, corsOrigins: ["http://localhost:5173"] });
  });

  it("a cross-site form or text/plain POST cannot reset the mock or load a scenario", async () => {
    await request(app).post("/_mock/reset").set("Content-Type", "text/plain").send('{"scope":"all"}').expect(415);
    await request(app).post("/_mock/reset").set("Content-Type", "application/x-www-form-urlencoded").send("scope=all").expect(415);
    const upload = await request(app).post("/_mock/scenarios").set("Content-Type", "text/plain").send("name: x\nevents: []\n").expect(415);
    expect(upload.body.detail).toMatch(/^Content-Type must be application\/json or application\/yaml/);
    // A page's request carries its Origin: refused whatever its content type.
    const foreign = await request(app).post("/_mock/reset").set("Origin", "http://evil.example").send({ scope: "all" }).expect(403);
    expect(foreign.body.detail).toMatch(/--cors-origin http:\/\/evil.example/);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
    await request(app).get("/_mock/requests").set("Origin", "http://evil.example").expect(403);
  });

  it("JSON, YAML uploads, bodiless admin calls and same-origin pages still work", async () => {
    await request(app).post("/_mock/reset").expect(200);
    await request(app).post("/_mock/reset").send({ scope: "journal" }).expect(200);
    await request(app).post("/_mock/scenarios").set("Content-Type", "application/yaml").send("name: y\nevents:\n  - { event: values, data: {} }\n").expect(200);
    const sameOrigin = await request(app).post("/_mock/reset").set("Host", "127.0.0.1:8123").set("Origin", "http://127.0.0.1:8123").send({}).expect(200);
    expect(sameOrigin.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("agent server and token URLs answer any origin with * and no credentials by default", async () => {
    const res = await request(app).options("/threads").set("Origin", "http://localhost:3000").set("Access-Control-Request-Method", "POST").expect(200);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
  });

  it("corsOrigins answers exactly the configured origins, the admin API included", async () => {
    const ok = await request(open).post("/threads").set("Origin", "http://localhost:5173").send({}).expect(200);
    expect(ok.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect(ok.headers["access-control-allow-credentials"]).toBe("true");
    const other = await request(open).post("/threads").set("Origin", "http://localhost:3000").send({}).expect(200);
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    const admin = await request(open).post("/_mock/reset").set("Origin", "http://localhost:5173").send({ scope: "journal" }).expect(200);
    expect(admin.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    await request(open).post("/_mock/reset").set("Origin", "http://localhost:3000").send({}).expect(403);
  });
});

describe("hosts and slow clients (startMockServer)", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ seed: 1, fixtures: false, allowedHosts: ["mock.example"], headersTimeoutMs: 200, requestTimeoutMs: 400 });
  });
  afterAll(() => mock.close());

  it("refuses a Host that is not loopback, the bound address or allowed (DNS rebinding)", async () => {
    const ask = (host: string) => raw(mock.port, `GET /ok HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    const evil = await ask("rebind.evil.example:8123");
    expect(evil).toMatch(/^HTTP\/1\.1 403/);
    expect(evil).toContain("--allowed-host rebind.evil.example");
    for (const host of [`127.0.0.1:${mock.port}`, `localhost:${mock.port}`, `[::1]:${mock.port}`, "app.localhost", "mock.example", "localhost.", `localhost.:${mock.port}`]) {
      expect(await ask(host), host).toMatch(/^HTTP\/1\.1 200/);
    }
  });

  it("closes a connection whose headers never finish", async () => {
    const answer = await raw(mock.port, "GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a connection whose body never finishes", async () => {
    const answer = await raw(mock.port, "POST /threads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe("streams honour backpressure", () => {
  /** A socket whose client reads nothing until `read()` is called. */
  function stalledSink() {
    const written: string[] = [];
    let release: (() => void) | undefined;
    const sink = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _enc, done) {
        written.push(chunk.toString());
        release = done;
      },
    });
    return { sink, written, read: () => release?.() };
  }

  it("pauses while write() returns false: heartbeats are skipped, events wait in order", async () => {
    const { sink, written, read } = stalledSink();
    const writer = new StreamWriter(sink, 60_000);
    writer.event("event-1 longer than the high water mark");
    expect(writer.paused).toBe(true);
    for (let i = 0; i < 1000; i++) writer.heartbeat(": heartbeat\r\n\r\n");
    writer.event("event-2");
    writer.event("event-3");
    expect(sink.writableLength).toBeLessThan(100);
    const drained = new Promise<void>((resolve) => writer.flushed(resolve));
    for (let i = 0; i < 3; i++) {
      read();
      await new Promise((r) => setImmediate(r));
    }
    await drained;
    expect(written).toEqual(["event-1 longer than the high water mark", "event-2", "event-3"]);
  });

  it("forgets its stall timer when the connection closes first (it held the response, and the mock, for the bound)", () => {
    vi.useFakeTimers();
    try {
      const { sink } = stalledSink();
      const destroy = vi.spyOn(sink, "destroy");
      const writer = new StreamWriter(sink, 30_000);
      writer.event("x".repeat(100));
      expect(vi.getTimerCount()).toBe(1);
      sink.emit("close");
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(30_000);
      expect(destroy).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it("drops a client that has not read for the bound", async () => {
    const { sink } = stalledSink();
    const closed = new Promise<void>((resolve) => sink.on("close", () => resolve()));
    const writer = new StreamWriter(sink, 20);
    writer.event("x".repeat(100));
    writer.event("queued");
    await closed;
    expect(sink.destroyed).toBe(true);
  });
});

describe("a stream client that never reads (real socket)", () => {
  it("is dropped after streamStallMs and its run is cancelled, not left running", async () => {
    const blob = "x".repeat(256 * 1024);
    const events = [...Array.from({ length: 40 }, (_, i) => ({ event: "values", data: { i, blob } })), { event: "values", data: { last: true }, delay_ms: 60_000 }];
    const mock = await startMockServer({ seed: 2, fixtures: false, clock: { autoAdvance: false }, streamStallMs: 50, scenarios: [{ name: "big", events }] });
    try {
      const body = JSON.stringify({ assistant_id: "agent", on_disconnect: "cancel" });
      const socket = connect(mock.port, "127.0.0.1");
      socket.on("error", () => {});
      socket.write(`POST /runs/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      socket.pause();
      const runs = runsIn(contextOf(mock.control));
      for (let i = 0; i < 10_000 && runs.size === 0; i++) await new Promise((r) => setImmediate(r));
      const [run] = [...runs.values()];
      // Cancelled when the client was dropped: the run ends interrupted while its last event still waits a minute.
      const [ended] = await mock.control.waitFor.run({ thread_id: run!.thread_id, status: "interrupted" });
      expect(ended!.run_id).toBe(run!.run_id);
      socket.destroy();
    } finally {
      await mock.close();
    }
  });

  it("a large JSON answer left unread is dropped after streamStallMs too, not held", async () => {
    const mock = await startMockServer({ seed: 2, fixtures: false, streamStallMs: 50 });
    try {
      // 24 threads of ~1 MB each: a search for them all answers more than the sockets' buffers take.
      const blob = JSON.stringify({ metadata: { blob: "x".repeat(990_000) } });
      for (let i = 0; i < 24; i++) await fetch(`${mock.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: blob });
      const socket = connect(mock.port, "127.0.0.1");
      socket.on("error", () => {});
      const search = JSON.stringify({ limit: 24 });
      socket.write(`POST /threads/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${search.length}\r\n\r\n${search}`);
      socket.pause();
      // Its journal entry is written when the answer closes: here, when the server gave up on it.
      const [entry] = await mock.waitFor.request({ route: "threads.search" }, { timeout: 15_000 });
      expect(entry?.status).toBe(200);
      expect(socket.bytesRead).toBeLessThan(24_000_000);
      socket.destroy();
    } finally {
      await mock.close();
    }
  });
});

describe("outbound fetches (MCP discovery)", () => {
  let app: Express;
  let remote: Server;
  let base: string;
  beforeAll(async () => {
    remote = createServer((req, res) => {
      if (req.url?.includes("/redirect")) return void res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end();
      // A "metadata service" answering with secrets in the wrong shape.
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ resource: { AccessKeyId: "AKIASECRET", SecretAccessKey: "wJalrSECRET" }, authorization_servers: "AKIASECRET" }));
    });
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    app = createApp({ seed: 1, fixtures: false });
  });
  afterAll(() => new Promise<void>((resolve) => remote.close(() => resolve())));

  const discover = (url: string) => request(app).post("/v2/auth/providers/mcp-discover").send({ provider_id: "p", name: "p", mcp_server_url: url });

  it("refuses hosts outside loopback and the fixture servers", async () => {
    const res = await discover("http://169.254.169.254/mcp").expect(400);
    expect(res.body.detail).toMatch(/the host 169\.254\.169\.254 is not allowed for outbound requests \(allow it with --allow-outbound-host 169\.254\.169\.254\)/);
  });

  it("follows a redirect only within the allowed hosts", async () => {
    const res = await discover(`${base}/redirect/mcp`).expect(400);
    expect(res.body.detail).toMatch(/the host 169\.254\.169\.254 is not allowed/);
  });

  it("never quotes the remote body in its error", async () => {
    const res = await discover(`${base}/mcp`).expect(400);
    expect(res.body.detail).toMatch(/invalid protected resource metadata document/);
    expect(JSON.stringify(res.body)).not.toMatch(/SECRET/);
  });

  it("allowOutbound opens other hosts", async () => {
    const allowed = createApp({ seed: 1, fixtures: false, allowOutbound: ["nowhere.invalid"] });
    const res = await request(allowed).post("/v2/auth/providers/mcp-discover").send({ provider_id: "p", name: "p", mcp_server_url: "http://nowhere.invalid/mcp" }).expect(400);
    expect(res.body.detail).not.toMatch(/not allowed/);
  });
});

/** Sends raw bytes and resolves with everything the server wrote before it closed the connection. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let got = "";
    socket.on("data", (chunk) => (got += chunk.toString()));
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
  });
}
