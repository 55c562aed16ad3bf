import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockOptions, type MockServer } from "../../src/index.js";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";
import type { Transcript, TranscriptExchange } from "../support/transcript-normalise.js";

/** One request a plain listener received, body read whole (test bodies are small). */
export interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Listener {
  url: string;
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

/**
 * A plain node:http server on 127.0.0.1:0 that keeps every request it gets. Used as the recorded
 * target, and as "another host" (a second loopback origin) that must never be contacted.
 * `handle` answers; without one, every request gets `200 {"ok": true}`.
 */
export async function listener(handle?: (hit: Hit, res: ServerResponse, req: IncomingMessage) => void): Promise<Listener> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const hit: Hit = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      hits.push(hit);
      if (handle) handle(hit, res, req);
      else res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Sends one request with node:http, the request target written as given (`//host/x`, `http://host/x`
 * and `*` included) and any `Host`/`Origin` header: what a browser page or a hostile client can send.
 */
export function send(base: string, target: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: target, method: init.method ?? "GET", headers: { connection: "close", ...init.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** `send` of a JSON POST to `base`, with extra headers. */
export function jsonPoster(base: string): (path: string, body: unknown, headers?: Record<string, string>) => Promise<Answer> {
  return (path, body, headers = {}) => send(base, path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

/** An SSE answer as an Agent Server streams it: `metadata` with the run id, then the given events. */
export function sse(res: ServerResponse, runId: string, events: { event: string; data: unknown }[], headers: Record<string, string> = {}): void {
  res.writeHead(200, { "content-type": "text/event-stream", "content-location": `/runs/${runId}`, ...headers });
  res.write(`event: metadata\ndata: ${JSON.stringify({ run_id: runId, attempt: 1 })}\n\n`);
  for (const e of events) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

export const RUN_ID = "1ef4f6a0-0000-4000-8000-000000000001";
export const user = (content: string) => ({ messages: [{ role: "user", content }] });

/** Per-connection headers: the proxy's connection to the client is not the server's. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding"]);

/** A fetch for the SDK that keeps every exchange (the response body is read whole, then handed on). */
export function capturingFetch(exchanges: TranscriptExchange[], current: () => string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const sent = request.body ? await request.clone().text() : "";
    const res = await fetch(request);
    const text = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (!CONNECTION_HEADERS.has(name)) headers[name] = value;
    });
    const url = new URL(request.url);
    let body: unknown = text;
    if (!(headers["content-type"] ?? "").includes("text/event-stream")) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        // kept as text
      }
    }
    exchanges.push({
      step: current(),
      request: { method: request.method, path: url.pathname + url.search, headers: { "content-type": request.headers.get("content-type") ?? "" }, body: sent ? (JSON.parse(sent) as unknown) : null },
      response: { status: res.status, headers, body },
    });
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

export async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _part of stream) {
    // the transcript keeps the bytes
  }
}

/** A session recorded through the proxy from an upstream mock, and replayed on a mock holding only the recording. */
export interface RecordedSession {
  upstream: MockServer;
  recorder: Recorder;
  /** The folder the recorder wrote. */
  out: string;
  recorded: Transcript;
  replayed: Transcript;
}

/**
 * Registers the describe block's beforeAll/afterAll: starts `upstream` (seed 42), records `session`
 * through the proxy into a fresh folder, then plays the same session against a mock (seed 7) loaded
 * with only the recording. The returned object is filled in once beforeAll has run.
 */
export function recordAndReplay(options: { upstream: MockOptions; apiKey?: string; now?: () => number; session: (baseUrl: string) => Promise<Transcript> }): RecordedSession {
  const s = {} as RecordedSession;
  let replay: MockServer | undefined;
  beforeAll(async () => {
    s.out = mkdtempSync(join(tmpdir(), "apm-record-"));
    s.upstream = await startMockServer({ port: 0, seed: 42, fixtures: false, ...options.upstream });
    s.recorder = await startRecorder({ target: s.upstream.url, out: s.out, port: 0, ...(options.apiKey ? { apiKey: options.apiKey } : {}), ...(options.now ? { now: options.now } : {}) });
    s.recorded = await options.session(s.recorder.url);
    await s.recorder.settled();
    replay = await startMockServer({ port: 0, seed: 7, fixtures: false, scenarios: [s.out] });
    s.replayed = await options.session(replay.url);
  });
  afterAll(async () => {
    await s.recorder?.close();
    await s.upstream?.close();
    await replay?.close();
    if (s.out) rmSync(s.out, { recursive: true, force: true });
  });
  return s;
}

/**
 * An SDK 2.x client whose every exchange is captured, each under the step named last with `at()`;
 * `transcript()` gives what was captured.
 */
export function capturingClient(baseUrl: string): { client: Client; at: (step: string) => void; transcript: () => Transcript } {
  const exchanges: TranscriptExchange[] = [];
  let step = "";
  const client = new Client({ apiUrl: baseUrl, apiKey: null, callerOptions: { maxRetries: 0, fetch: capturingFetch(exchanges, () => step) } });
  return { client, at: (name) => void (step = name), transcript: () => ({ server: { server: "agent-platform-mock" }, baseUrls: [baseUrl], exchanges }) };
}
