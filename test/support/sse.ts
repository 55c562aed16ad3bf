import { request as httpRequest } from "node:http";

/** One block of a raw SSE transcript: an event (fields as written) or a `:` comment. */
export type SseBlock =
  | { kind: "event"; event: string | null; data: string | null; id: string | null; json: unknown }
  | { kind: "comment"; text: string };

/**
 * Parses a raw SSE body strictly as the agent server frames it: blocks end with CRLF CRLF and lines
 * with CRLF. Throws on a bare LF or an unterminated block, so framing mistakes fail tests.
 */
export function parseSse(raw: string): SseBlock[] {
  if (/(^|[^\r])\n/.test(raw)) throw new Error(`SSE transcript has a bare LF: ${JSON.stringify(raw.slice(0, 200))}`);
  if (raw !== "" && !raw.endsWith("\r\n\r\n")) throw new Error(`SSE transcript ends mid-block: ${JSON.stringify(raw.slice(-200))}`);
  const blocks: SseBlock[] = [];
  for (const block of raw.split("\r\n\r\n").slice(0, -1)) {
    const lines = block.split("\r\n");
    if (lines.every((l) => l.startsWith(":"))) {
      blocks.push({ kind: "comment", text: lines.map((l) => l.slice(1).trim()).join("\n") });
      continue;
    }
    const fields: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(": ");
      if (colon < 0) throw new Error(`SSE line without "field: value": ${JSON.stringify(line)}`);
      fields[line.slice(0, colon)] = line.slice(colon + 2);
    }
    const data = fields.data ?? null;
    blocks.push({ kind: "event", event: fields.event ?? null, data, id: fields.id ?? null, json: data === null ? undefined : JSON.parse(data) });
  }
  return blocks;
}

/** The events of a transcript as `{event, data, id}` with parsed data (comments left out). */
export function sseEvents(raw: string): { event: string; data: unknown; id: string | null }[] {
  return parseSse(raw).flatMap((b) => (b.kind === "event" ? [{ event: b.event as string, data: b.json, id: b.id }] : []));
}

/** A supertest parser that keeps an event-stream body as raw text: `.buffer(true).parse(rawText)`. */
export function rawText(res: unknown, callback: (err: Error | null, body: string) => void): void {
  // supertest types it as its own Response; at run time it is node's IncomingMessage.
  const stream = res as NodeJS.ReadableStream;
  let text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => (text += chunk));
  stream.on("end", () => callback(null, text));
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** False when the server dropped the connection before the body's end. */
  complete: boolean;
}

/** A request over a real socket that returns whatever arrived, even when the server drops the connection. */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(url, { method: options.method ?? "GET", headers: { ...(payload ? { "content-type": "application/json" } : {}), ...options.headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      const done = (complete: boolean) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, complete });
      res.on("end", () => done(res.complete));
      res.on("error", () => done(false));
      res.on("aborted", () => done(false));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * Opens an event stream over a real socket and reads it as it arrives: `until(needle)` resolves once
 * the text received so far contains the needle (on arrival, no polling); `close()` aborts the request
 * and waits for the reader to stop.
 */
export async function openLiveStream(url: string, init: RequestInit = {}) {
  const abort = new AbortController();
  const res = await fetch(url, { ...init, signal: abort.signal });
  let text = "";
  const waiting = new Set<{ needle: string; resolve: () => void }>();
  const check = () => {
    for (const w of waiting) if (text.includes(w.needle)) (waiting.delete(w), w.resolve());
  };
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        check();
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    res,
    text: () => text,
    blocks: () => parseSse(text),
    until: (needle: string) =>
      new Promise<void>((resolve) => {
        waiting.add({ needle, resolve });
        check();
      }),
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}
