import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";
import { listener, RUN_ID, send, sse, user, type Listener } from "./helpers.js";

/**
 * Issue 28, defects 1 and 2: the recorder talks to its target's origin only (the user's key goes
 * nowhere else), and only loopback pages, its own origin and configured origins may drive it.
 * `other` is a second loopback listener standing in for another host: it must never be contacted.
 */

const KEY = "lsv2_pt_recorder_origin_test_key_0123456789";

describe("the recorder forwards to its target's origin only", () => {
  let target: Listener;
  let other: Listener;
  let recorder: Recorder;
  let prefixed: Recorder;
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-origin-"));
    other = await listener();
    target = await listener((hit, res) => {
      if (hit.url.endsWith("/threads/t-redirect/runs/stream")) {
        return sse(res, RUN_ID, [{ event: "updates", data: { __interrupt__: [{ value: { question: "ok?" }, id: "i1" }] } }]);
      }
      // The state the recorder reads after an interrupt redirects to another host: it must not follow.
      if (hit.url.endsWith("/threads/t-redirect/state")) return res.writeHead(302, { location: `${other.url}/state` }).end();
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*", "access-control-allow-credentials": "true" }).end(JSON.stringify({ path: hit.url }));
    });
    recorder = await startRecorder({ target: target.url, apiKey: KEY, out, port: 0, allowedHosts: ["mock.internal"], corsOrigins: ["https://app.example"] });
    prefixed = await startRecorder({ target: `${target.url}/deploy/`, apiKey: KEY, out: join(out, "prefixed"), port: 0 });
  });
  afterAll(async () => {
    await recorder?.close();
    await prefixed?.close();
    await target?.close();
    await other?.close();
    rmSync(out, { recursive: true, force: true });
  });
  beforeEach(() => {
    target.hits.length = 0;
    other.hits.length = 0;
  });

  it("forwards a path to the target, with the key and the target's Host", async () => {
    const answer = await send(recorder.url, "/assistants/search?limit=1");
    expect(answer.status).toBe(200);
    expect(target.hits.map((h) => [h.url, h.headers["x-api-key"], h.headers.host])).toEqual([["/assistants/search?limit=1", KEY, `127.0.0.1:${target.port}`]]);
    const viaPrefix = await send(prefixed.url, "/threads/x");
    expect(viaPrefix.status).toBe(200);
    expect(target.hits[1]?.url).toBe("/deploy/threads/x");
    expect(other.hits).toEqual([]);
  });

  it.each([
    // The last column: Node's HTTP parser refuses the request line itself (400, empty body).
    ["a scheme-relative target", (port: number) => `//127.0.0.1:${port}/steal`, false],
    ["an absolute-form request line", (port: number) => `http://127.0.0.1:${port}/steal`, false],
    ["an absolute-form line naming the recorder's target", () => "http://127.0.0.1:1/steal", false],
    ["a backslash that URL parsers read as a slash", (port: number) => `/\\127.0.0.1:${port}/steal`, false],
    ["two backslashes", (port: number) => `\\\\127.0.0.1:${port}/steal`, true],
    ["an authority-form target", (port: number) => `127.0.0.1:${port}`, true],
    ["the asterisk form", () => "*", false],
    ["a dot segment", () => "/../steal", false],
    ["a percent-encoded dot segment", () => "/threads/%2E%2e/steal", false],
    // Disguised dot segments: each reads as `..` (or `.`) to some parser on the way to the target.
    ["an encoded slash after a dot segment", () => "/..%2fadmin", false],
    ["a dot segment and slash all encoded", () => "/%2e%2e%2fadmin", false],
    ["a dot segment with a path parameter (Tomcat, Jetty)", () => "/..;/admin", false],
    ["a dot segment with an encoded path parameter", () => "/threads/..%3Bx/admin", false],
    ["a dot segment before a fragment (WHATWG URL)", () => "/..#/x", false],
    ["a fragment, which no request target holds", () => "/threads/t1?q=1#/../x", false],
    ["an encoded backslash after a dot segment", () => "/..%5cadmin", false],
    ["an encoded backslash alone", () => "/threads/a%5Cb", false],
    ["an encoded slash alone", () => "/threads/a%2Fb", false],
    ["one dot, half encoded", () => "/threads/.%2E/steal", false],
    ["a single-dot segment", () => "/threads/./x", false],
    ["an encoded single dot with a parameter", () => "/threads/%2e;x/y", false],
    ["a dot segment before an encoded query", () => "/threads/..%3f/x", false],
    ["a double-encoded dot segment (a chain of servers decoding once each)", () => "/threads/%252e%252E/x", false],
    ["a double-encoded slash", () => "/threads/..%252fx", false],
  ])("refuses %s with 400 and contacts no one", async (_name, make, byParser) => {
    for (const base of [recorder.url, prefixed.url]) {
      const answer = await send(base, make(other.port), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(answer.status).toBe(400);
      if (byParser) expect(answer.body).toBe("");
      else expect(JSON.parse(answer.body)).toEqual({ detail: expect.stringContaining("only paths on the target are forwarded") });
    }
    expect(other.hits).toEqual([]);
    expect(target.hits).toEqual([]);
  });

  it.each([
    ["a version with dots", "/assistants/v1.2/schemas"],
    ["a name starting with two dots", "/threads/..foo"],
    ["three dots", "/threads/..."],
    ["a dotted name", "/store/.well-known"],
    ["an encoded dot in a longer name", "/threads/%2e%2efoo"],
    ["a path parameter that is no dot segment", "/threads/a;b=.."],
    ["an encoded percent", "/threads/50%25off"],
    ["a non-ASCII name", "/threads/%E2%9C%93"],
    ["dot segments in the query, which no parser resolves", "/store/items?key=../..%2f&ns=a%2Fb"],
    ["an empty segment", "/threads//x"],
  ])("forwards %s as sent", async (_name, path) => {
    const answer = await send(prefixed.url, path);
    expect(answer.status).toBe(200);
    expect(target.hits.map((h) => h.url)).toEqual([`/deploy${path}`]);
  });

  it("does not follow a redirect away from the target when it reads a thread's state", async () => {
    const answer = await send(recorder.url, "/threads/t-redirect/runs/stream", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "agent", input: user("approve this"), stream_mode: ["updates"] }) });
    expect(answer.status).toBe(200);
    await recorder.settled();
    expect(target.hits.map((h) => h.url)).toEqual(["/threads/t-redirect/runs/stream", "/threads/t-redirect/state"]);
    expect(other.hits).toEqual([]);
    const file = recorder.files.find((f) => f.includes("approve-this")) as string;
    expect((parse(readFileSync(file, "utf8")) as { end: unknown }).end).toEqual({ interrupt: { value: { question: "ok?" } } });
  });
});

describe("the recorder checks Host and Origin as the mock does", () => {
  let target: Listener;
  let recorder: Recorder;
  let out: string;
  let port: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-host-"));
    target = await listener((hit, res) => {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*", "access-control-allow-credentials": "true", "access-control-allow-methods": "*" }).end(JSON.stringify({ path: hit.url }));
    });
    recorder = await startRecorder({ target: target.url, apiKey: KEY, out, port: 0, allowedHosts: ["mock.internal"], corsOrigins: ["https://app.example"] });
    port = new URL(recorder.url).port;
  });
  afterAll(async () => {
    await recorder?.close();
    await target?.close();
    rmSync(out, { recursive: true, force: true });
  });
  beforeEach(() => {
    target.hits.length = 0;
  });

  it.each(["evil.example", `evil.example:${8124}`, "127.0.0.1.nip.io", "localhost.evil.example"])("refuses Host %s (DNS rebinding) with 403", async (host) => {
    const answer = await send(recorder.url, "/threads", { method: "POST", headers: { host, "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).detail).toMatch(/^Host '[^']+' is not allowed; start the recorder with --allowed-host /);
    expect(target.hits).toEqual([]);
  });

  it.each(["localhost", "app.localhost", "127.0.0.1", "[::1]", "mock.internal"])("accepts Host %s (loopback, bound or allowed)", async (name) => {
    const answer = await send(recorder.url, "/ok", { headers: { host: `${name}:${port}` } });
    expect(answer.status).toBe(200);
    expect(target.hits).toHaveLength(1);
  });

  it.each([
    ["another site", "https://evil.example"],
    ["another site on a loopback port name", "http://localhost.evil.example:5173"],
    ["a sandboxed frame or a file: page", "null"],
    ["a non-http scheme", "chrome-extension://abcdef"],
  ])("refuses an Origin from %s with 403, before anything is forwarded", async (_name, origin) => {
    // A "simple" request: no preflight, so a page could send it.
    const answer = await send(recorder.url, "/runs/wait", { method: "POST", headers: { origin, "content-type": "text/plain" }, body: "{}" });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).detail).toContain("--cors-origin");
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await send(recorder.url, "/runs/wait", { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(403);
    expect(target.hits).toEqual([]);
  });

  it("refuses a cross-site request that carries no Origin (an image, a link)", async () => {
    const answer = await send(recorder.url, "/threads", { headers: { "sec-fetch-site": "cross-site" } });
    expect(answer.status).toBe(403);
    expect(target.hits).toEqual([]);
    expect((await send(recorder.url, "/threads", { headers: { "sec-fetch-site": "same-origin" } })).status).toBe(200);
  });

  it.each([`http://127.0.0.1:${5173}`, "http://localhost:3000", "https://app.example", "https://app.example/"])("answers CORS itself for Origin %s, never the target's", async (origin) => {
    const answer = await send(recorder.url, "/threads/search", { method: "POST", headers: { origin, "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe(origin);
    expect(answer.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(answer.headers["access-control-allow-methods"]).toBeUndefined();
    expect(answer.headers.vary).toBe("Origin");
    expect(target.hits).toHaveLength(1);
  });

  it("answers an allowed preflight itself: the target never sees it", async () => {
    const answer = await send(recorder.url, "/runs/stream", { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-api-key" } });
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({ "access-control-allow-origin": "http://localhost:5173", "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS", "access-control-allow-headers": "content-type, x-api-key" });
    expect(target.hits).toEqual([]);
  });

  it("passes no CORS header of the target's to a client without Origin", async () => {
    const answer = await send(recorder.url, "/threads/search", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    expect(JSON.parse(answer.body)).toEqual({ path: "/threads/search" });
  });
});
