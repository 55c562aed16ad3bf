import { connect, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { startMockServer } from "../../src/index.js";

/** Whether something else can bind the port now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

describe("startMockServer().close()", () => {
  it("frees the port and the tracing port, even with an open stream, a stalled request and idle keep-alive connections", async () => {
    const mock = await startMockServer({
      seed: 1,
      fixtures: false,
      tracingPort: 0,
      // The stream waits at its delay until the clock is advanced: it stays open.
      clock: { autoAdvance: false },
      scenarios: [{ name: "slow", events: [{ event: "values", data: { a: 1 }, delay_ms: 60_000 }] }],
    });
    const port = mock.port;
    const tracingPort = Number(new URL(mock.tracingUrl).port);
    // A keep-alive connection left idle on each port.
    await (await fetch(`${mock.url}/_mock/health`)).text();
    await (await fetch(`${mock.tracingUrl}/api/v1/info`)).text();
    const thread = (await (await fetch(`${mock.url}/threads`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })).json()) as { thread_id: string };
    const res = await fetch(`${mock.url}/threads/${thread.thread_id}/runs/stream`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ assistant_id: "agent" }) });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: metadata");

    // A request whose body never comes: its connection is busy, not idle.
    const stalled = connect(port, "127.0.0.1");
    // Closing may reset this connection rather than end it; either is fine here.
    stalled.on("error", () => {});
    await new Promise((r) => stalled.once("connect", r));
    stalled.write("POST /api/v1/feedback HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    const stalledClosed = new Promise((r) => stalled.once("close", r));

    await mock.close();
    await stalledClosed;

    // The open stream ends (the socket is closed under it) instead of hanging.
    const ended = await reader.read().then(
      (r) => (r.done ? "done" : "more"),
      () => "closed",
    );
    expect(ended).not.toBe("more");
    expect(await canListen(port)).toBe(true);
    expect(await canListen(tracingPort)).toBe(true);
  });

  it("can be called twice", async () => {
    const mock = await startMockServer({ fixtures: false });
    await mock.close();
    await expect(mock.close()).resolves.toBeUndefined();
  });

  it("a port in use rejects with a ListenError naming it, and the tracing port's failure frees the main port", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const busy = (blocker.address() as { port: number }).port;
    try {
      await expect(startMockServer({ fixtures: false, port: busy })).rejects.toMatchObject({
        name: "ListenError",
        code: "EADDRINUSE",
        message: `cannot listen on 127.0.0.1:${busy}: the port is already in use`,
      });
      const free = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, "127.0.0.1", () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      await expect(startMockServer({ fixtures: false, port: free, tracingPort: busy })).rejects.toMatchObject({ code: "EADDRINUSE" });
      expect(await canListen(free)).toBe(true);
    } finally {
      blocker.close();
    }
  });
});

describe("startMockServer().reload()", () => {
  it("serves a fresh mock on the same ports, to connections opened before it", async () => {
    const mock = await startMockServer({ seed: 1, fixtures: false, tracingPort: 0 });
    try {
      const created = await fetch(`${mock.url}/threads`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      const { thread_id } = (await created.json()) as { thread_id: string };
      expect((await fetch(`${mock.url}/threads/${thread_id}`)).status).toBe(200);
      await mock.reload();
      // The thread was the previous mock's: the one now answering starts over.
      const after = await fetch(`${mock.url}/threads/${thread_id}`);
      expect(after.status).toBe(404);
      expect(after.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(await after.json()).toEqual({ detail: "Not Found" });
      expect((await fetch(`${mock.tracingUrl}/api/v1/info`)).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});
