import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TranscriptExchange } from "../support/transcript-normalise.js";

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
