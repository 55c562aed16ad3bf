import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { TranscriptExchange } from "./transcript-normalise.js";

/**
 * The pass-through proxy that records a conformance transcript: every exchange, byte-faithfully (bodies
 * decoded as UTF-8), in request order, labelled with the session step current when the request arrived.
 * conformance/capture.mjs puts it in front of the JS dev server (and of the recorder); the conformance
 * tests put it in front of the mock, so both sides' transcripts are taken the same way.
 *
 * Plain node:http with no dependencies: the capture script loads it through tsx from its own folder.
 */
export interface RecordingProxy {
  baseUrl: string;
  exchanges: TranscriptExchange[];
  /** Labels the exchanges that follow. */
  setStep(name: string): void;
  /** Resolves when every request seen so far has its whole response recorded. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Request headers worth keeping: the ones a server's behaviour depends on. */
const KEPT_REQUEST_HEADERS = ["content-type", "accept", "last-event-id", "cache-control"];

function parseBody(text: string, contentType: string): unknown {
  if (text === "") return null;
  if (contentType.includes("text/event-stream")) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    Object.defineProperty(out, name.toLowerCase(), { value: Array.isArray(value) ? value.join(", ") : value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Starts the proxy on 127.0.0.1 (a free port) in front of `upstream` (an origin such as "http://127.0.0.1:2024"). */
export function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const exchanges: TranscriptExchange[] = [];
  const pending = new Set<Promise<void>>();
  let step = "(before the session)";
  const server = createServer((req, res) => {
    const exchange = { step, request: null, response: null } as unknown as TranscriptExchange;
    exchanges.push(exchange);
    const done = new Promise<void>((resolve) => {
      const body: Buffer[] = [];
      req.on("data", (chunk: Buffer) => body.push(chunk));
      req.on("end", () => {
        const requestText = Buffer.concat(body).toString("utf8");
        const requestHeaders: Record<string, string> = {};
        for (const name of KEPT_REQUEST_HEADERS) if (req.headers[name] !== undefined) requestHeaders[name] = String(req.headers[name]);
        exchange.request = { method: req.method ?? "GET", path: req.url ?? "/", headers: requestHeaders, body: parseBody(requestText, req.headers["content-type"] ?? "") };
        const upstreamReq = httpRequest(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
          (upstreamRes) => {
            res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.rawHeaders);
            const chunks: Buffer[] = [];
            upstreamRes.on("data", (chunk: Buffer) => {
              chunks.push(chunk);
              res.write(chunk);
            });
            upstreamRes.on("end", () => {
              res.end();
              const headers = headerRecord(upstreamRes.headers);
              exchange.response = { status: upstreamRes.statusCode ?? 0, headers, body: parseBody(Buffer.concat(chunks).toString("utf8"), headers["content-type"] ?? "") };
              resolve();
            });
          },
        );
        upstreamReq.on("error", (error) => {
          exchange.response = { status: 0, headers: {}, body: `proxy: upstream error ${error.message}` };
          res.destroy();
          resolve();
        });
        upstreamReq.end(Buffer.concat(body));
      });
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        exchanges,
        setStep: (name) => {
          step = name;
        },
        settle: async () => {
          await Promise.all([...pending]);
        },
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
