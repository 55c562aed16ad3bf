import type { Response } from "express";

/** Response headers of every run stream, as the real server (sse-starlette) sends them (DESIGN §2). */
export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-store",
  "X-Accel-Buffering": "no",
};

/** An SSE comment the real server writes every 5 s while a run is quiet; clients ignore it. */
export const HEARTBEAT = ": heartbeat\r\n\r\n";

/** One event: CRLF line ends, compact one-line JSON, and an `id:` line after the data when given. */
export function sseFrame(event: string, json: string, id?: number): string {
  return `event: ${event}\r\ndata: ${json}\r\n${id === undefined ? "" : `id: ${id}\r\n`}\r\n`;
}

/** Starts a 200 event stream with the run's Content-Location (and Location, for reconnects) headers. */
export function openStream(res: Response, headers: Record<string, string>): void {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  res.flushHeaders();
}
