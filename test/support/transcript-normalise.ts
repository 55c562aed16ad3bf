/**
 * Transcripts of HTTP sessions (as conformance/capture.mjs records them) and their normal form, so two
 * servers answering the same client session can be compared: ids become placeholders numbered by first
 * appearance, times become `<time>`, and SSE bodies become event lists whatever their framing.
 *
 * Plain TypeScript with no dependencies: the capture script loads it through tsx from its own folder.
 */

/** One request and its answer, as the recording proxy saw them on the wire. */
export interface TranscriptExchange {
  /** The session step that made the request (see test/support/conformance-session.ts). */
  step: string;
  request: {
    method: string;
    /** Path and query string, as sent. */
    path: string;
    headers: Record<string, string>;
    /** Parsed JSON when the body was JSON, the text otherwise, null when there was none. */
    body: unknown;
  };
  response: {
    status: number;
    /** Every response header, names lower-cased, repeated headers joined with ", ". */
    headers: Record<string, string>;
    /** Parsed JSON when the body was JSON, the raw text otherwise (always the raw text for event streams). */
    body: unknown;
  };
}

export interface Transcript {
  /** What answered: package names and versions, or "agent-platform-mock". */
  server: Record<string, string>;
  /** The origins the session used (recording proxy, upstream): ports are chosen at run time. */
  baseUrls?: string[];
  exchanges: TranscriptExchange[];
}

/** One SSE event with its data parsed, or a `:` comment (heartbeats). */
export type NormalSseBlock = { event: string | null; id: string | null; data: unknown } | { comment: string };

/** An SSE body in comparable form: the blocks, plus the framing facts that pretty or compact JSON hides. */
export interface NormalSse {
  /** "\r\n", "\n" or "mixed": production frames with CRLF. */
  lineEnding: "\r\n" | "\n" | "mixed" | "none";
  /** Whether any event carried an `id:` line (production: only on resumable streams). */
  hasIds: boolean;
  /** Whether some event's JSON was split over several `data:` lines (pretty-printed). */
  multiLineData: boolean;
  blocks: NormalSseBlock[];
}

export interface NormaliseOptions {
  /** Origins (e.g. "http://127.0.0.1:43117") replaced by `<base-url>` wherever they appear; default: the transcript's `baseUrls`. */
  baseUrls?: string[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
// Bare 32-hex-digit ids: interrupt ids are a hash of the task's checkpoint namespace, so they change every run.
const HEX_ID = /\b[0-9a-f]{32}\b/gi;
// ISO 8601 date-times as servers print them: `…Z`, `…+00:00`, with or without fractions.
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g;
// Redis-stream style event ids of the production server's resumable streams: "<ms>-<seq>".
const STREAM_ID = /^\d{10,}-\d+$/;

/** Headers whose values differ on every run by nature; their presence is kept, their value hidden. */
const VOLATILE_HEADERS: Record<string, string> = { date: "<http-date>", "content-length": "<length>", "keep-alive": "<keep-alive>" };

/**
 * Numbers ids in order of first appearance across one whole transcript, so the same id maps to the same
 * placeholder everywhere (a run id in a header, an SSE event and a later URL all become `<uuid:3>`).
 */
class IdMap {
  private readonly seen = new Map<string, string>();
  constructor(private readonly prefix: string) {}
  placeholder(id: string): string {
    const key = id.toLowerCase();
    let name = this.seen.get(key);
    if (name === undefined) {
      name = `<${this.prefix}:${this.seen.size + 1}>`;
      this.seen.set(key, name);
    }
    return name;
  }
}

class Normaliser {
  private readonly uuids = new IdMap("uuid");
  private readonly hexIds = new IdMap("hex");
  private readonly eventIds = new IdMap("event-id");
  constructor(private readonly options: NormaliseOptions) {}

  text(value: string): string {
    let out = value;
    for (const base of this.options.baseUrls ?? []) out = out.split(base).join("<base-url>");
    out = out.replace(UUID, (id) => this.uuids.placeholder(id));
    out = out.replace(HEX_ID, (id) => this.hexIds.placeholder(id));
    return out.replace(ISO_TIME, "<time>");
  }

  /** Walks JSON data, normalising strings (object keys too: the JS server keys interrupts by task id). */
  json(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        Object.defineProperty(out, this.text(key), { value: this.json(item), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return value;
  }

  eventId(id: string): string {
    // Production ids carry a time; the JS server counts from 0. Both become placeholders by first use.
    return STREAM_ID.test(id) || /^\d+$/.test(id) ? this.eventIds.placeholder(id) : this.text(id);
  }

  sse(raw: string): NormalSse {
    const crlf = raw.includes("\r\n");
    const bareLf = /(^|[^\r])\n/.test(raw);
    const lineEnding = crlf && bareLf ? "mixed" : crlf ? "\r\n" : bareLf ? "\n" : "none";
    let hasIds = false;
    let multiLineData = false;
    const blocks: NormalSseBlock[] = [];
    for (const block of raw.split(/\r\n\r\n|\n\n|\r\r/)) {
      if (block.trim() === "") continue;
      const lines = block.split(/\r\n|\n|\r/);
      if (lines.every((line) => line.startsWith(":"))) {
        blocks.push({ comment: lines.map((line) => line.slice(1).trim()).join("\n") });
        continue;
      }
      let event: string | null = null;
      let id: string | null = null;
      const data: string[] = [];
      for (const line of lines) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const fieldValue = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = fieldValue;
        else if (field === "id") id = fieldValue;
        else if (field === "data") data.push(fieldValue);
      }
      if (id !== null) hasIds = true;
      if (data.length > 1) multiLineData = true;
      blocks.push({ event, id: id === null ? null : this.eventId(id), data: this.json(parseData(data)) });
    }
    return { lineEnding, hasIds, multiLineData, blocks };
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of Object.keys(headers).sort()) {
      const value = headers[name] as string;
      Object.defineProperty(out, name, { value: VOLATILE_HEADERS[name] ?? this.text(value), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  exchange(exchange: TranscriptExchange): TranscriptExchange {
    const isSse = (exchange.response.headers["content-type"] ?? "").includes("text/event-stream");
    return {
      step: exchange.step,
      request: {
        method: exchange.request.method,
        path: this.text(exchange.request.path),
        headers: this.headers(exchange.request.headers),
        body: this.json(exchange.request.body),
      },
      response: {
        status: exchange.response.status,
        headers: this.headers(exchange.response.headers),
        body: isSse && typeof exchange.response.body === "string" ? this.sse(exchange.response.body) : this.json(exchange.response.body),
      },
    };
  }
}

/** `data:` lines joined as the SSE spec does (with "\n"), then parsed as JSON when they are JSON. */
function parseData(lines: string[]): unknown {
  if (lines.length === 0) return null;
  const text = lines.join("\n");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The comparable form of a transcript: ids and times replaced by placeholders (numbered over the whole
 * transcript, in order of first appearance), volatile headers hidden, SSE bodies parsed into events.
 */
export function normaliseTranscript(transcript: Transcript, options: NormaliseOptions = {}): Transcript {
  const normaliser = new Normaliser({ baseUrls: options.baseUrls ?? transcript.baseUrls });
  // The origins themselves are left out: they are what every `<base-url>` stands for.
  return { server: transcript.server, exchanges: transcript.exchanges.map((exchange) => normaliser.exchange(exchange)) };
}
