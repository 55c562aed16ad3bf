/** An SSE comment the real server writes every 5 s while a run is quiet; clients ignore it. */
export const HEARTBEAT = ": heartbeat\r\n\r\n";

/** One event: CRLF line ends, compact one-line JSON, and an `id:` line after the data when given (resumable runs). */
export function sseFrame(event: string, json: string, id?: string): string {
  return `event: ${event}\r\ndata: ${json}\r\n${id === undefined ? "" : `id: ${id}\r\n`}\r\n`;
}
