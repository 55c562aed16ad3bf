import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler } from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";
import { entryOf, setAppEntry } from "../../src/http/app-entry.js";
import { errorHandler } from "../../src/http/fallback.js";

type Answer = { status: number; headers: Record<string, string | undefined>; body: string };

const SHOWN_HEADERS = ["content-type", "content-length", "allow", "content-location", "location", "cache-control"];

/** The same requests, in the same order, as [method, path, body?]. */
const REQUESTS: [string, string, string?][] = [
  ["GET", "/ok"],
  ["GET", "/no/such/path"],
  ["DELETE", "/ok"],
  ["POST", "/threads", "{not json"],
  ["POST", "/threads", JSON.stringify({ metadata: { a: 1 } })],
  ["POST", "/threads/search?x=1", JSON.stringify({ limit: 5 })],
  ["POST", "/runs/wait", JSON.stringify({ assistant_id: "agent", input: { q: 1 } })],
  // No scenario matches: the error names the request (its original URL).
  ["POST", "/runs/wait?why=1", JSON.stringify({ assistant_id: "agent", input: { q: 2 } })],
  ["GET", "/v2/deployments?limit=2&name_contains=a"],
  ["GET", "/v2/deployments?limit=-4"],
];

const OPTIONS = {
  seed: 21,
  clock: { start: "2026-01-01T00:00:00Z", autoAdvance: false },
  scenarios: [{ name: "answer", match: { input: { q: 1 } }, events: [{ event: "values", data: { answer: 42 } }] }],
};

function shown(status: number, headers: Record<string, unknown>, body: string): Answer {
  return { status, headers: Object.fromEntries(SHOWN_HEADERS.map((h) => [h, headers[h] === undefined ? undefined : String(headers[h])])), body };
}

describe("the mock's own servers answer as the express app does", () => {
  let server: MockServer;
  beforeAll(async () => {
    server = await startMockServer(OPTIONS);
  });
  afterAll(() => server.close());

  it("the same status, headers, bodies and journal for the same requests, through express's router and without it", async () => {
    // Its URLs (a deployment's custom_url) as the server's.
    const app = createApp({ ...OPTIONS, publicUrl: server.url, tracingUrl: server.tracingUrl });
    expect(entryOf(app)).not.toBe(app);
    const viaExpress: Answer[] = [];
    const direct: Answer[] = [];
    for (const [method, path, body] of REQUESTS) {
      let test = request(app)[method.toLowerCase() as "get"](path);
      if (body !== undefined) test = test.set("Content-Type", "application/json").send(body);
      const res = await test;
      viaExpress.push(shown(res.status, res.headers, res.text));
      const answer = await fetch(`${server.url}${path}`, { method, headers: body === undefined ? {} : { "Content-Type": "application/json" }, body });
      direct.push(shown(answer.status, Object.fromEntries(answer.headers), await answer.text()));
    }
    expect(direct).toEqual(viaExpress);
    expect(direct.map((a) => a.status)).toEqual([200, 404, 405, 422, 200, 200, 200, 422, 200, 422]);
    // What the journal saw of each: path, query, route and status.
    const journal = (list: { method: string; path: string; query: unknown; route: string | null; status: number }[]) => list.map((e) => [e.method, e.path, e.query, e.route, e.status]);
    expect(journal(server.requests())).toEqual(journal(mockOf(app).requests()));
    expect(journal(server.requests())[5]).toEqual(["POST", "/threads/search", { x: "1" }, "threads.search", 200]);
    expect(direct[7]?.body).toContain("POST /runs/wait?why=1");
  });
});

describe("setAppEntry", () => {
  let http: Server;
  let url: string;
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  const throwingHandler: ErrorRequestHandler = () => {
    throw new Error("the error handler failed");
  };
  const apps = {
    "/throws": [
      () => {
        throw new Error("a step failed");
      },
    ],
  };
  beforeAll(async () => {
    const viaHandler = express();
    setAppEntry(viaHandler, apps["/throws"], errorHandler());
    const viaBrokenHandler = express();
    setAppEntry(viaBrokenHandler, apps["/throws"], throwingHandler);
    http = createServer((req, res) => (req.url === "/broken" ? entryOf(viaBrokenHandler) : entryOf(viaHandler))(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    stderr.mockRestore();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it("hands a step's error to the error handler (a bug is a 500 without a stack trace)", async () => {
    const res = await fetch(`${url}/throws`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: "Internal Server Error" });
    expect(String(stderr.mock.calls.at(-1)?.[0])).toContain("internal error on GET /throws: Error: a step failed");
  });

  it("answers a bare 500 when the error handler itself fails, and says so on stderr", async () => {
    const res = await fetch(`${url}/broken`);
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({ detail: "Internal Server Error" });
    expect(String(stderr.mock.calls.at(-1)?.[0])).toContain("unanswered GET /broken: Error: the error handler failed");
  });
});
