/** One SSE event as it arrived from the upstream server. */
export interface RecordedEvent {
  event: string;
  /** The `data:` lines joined with "\n" and parsed as JSON (the text itself when it is not JSON). */
  data: unknown;
  /** Milliseconds since the stream's response headers arrived (the recorder's wall clock). */
  atMs: number;
}

/**
 * Reads an SSE body chunk by chunk as it streams through the proxy and keeps its events with their
 * arrival times. Comments (heartbeats) and `id:` lines are dropped: the mock makes its own on replay.
 * Incremental because the proxy forwards each chunk at once; the parser only watches.
 */
export class SseTranscript {
  readonly events: RecordedEvent[] = [];
  private buffer = "";
  private readonly decoder = new TextDecoder();

  /** `now` reads the recorder's wall clock; the upstream's pace is what a recording keeps. */
  private readonly startedAt: number;
  constructor(private readonly now: () => number) {
    this.startedAt = now();
  }

  push(chunk: Uint8Array): void {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    // Blocks end at a blank line; CRLF (production) and LF framings both occur.
    for (;;) {
      const match = /\r\n\r\n|\n\n|\r\r/.exec(this.buffer);
      if (!match) break;
      const block = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.block(block);
    }
  }

  /** The stream ended: a last block without its blank line still counts. */
  end(): void {
    this.buffer += this.decoder.decode();
    if (this.buffer.trim() !== "") this.block(this.buffer);
    this.buffer = "";
  }

  private block(text: string): void {
    let event = "message";
    const data: string[] = [];
    for (const line of text.split(/\r\n|\n|\r/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length === 0) return;
    const joined = data.join("\n");
    let parsed: unknown = joined;
    try {
      parsed = JSON.parse(joined) as unknown;
    } catch {
      // not JSON: kept as text
    }
    this.events.push({ event, data: parsed, atMs: this.now() - this.startedAt });
  }
}
