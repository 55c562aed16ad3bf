import type { Request, RequestHandler } from "express";
import { exchangeOf, queryOf, type Exchange } from "./exchange.js";
import type { MockClock } from "../core/clock.js";
import { formatTimestamp } from "../core/clock.js";
import { rawBodyOf } from "./json-body.js";
import { MAX_DEPTH, jsonTextDepth } from "../core/shape-limits.js";
import { redactBodyText, redactHeaders } from "./redact.js";

export interface JournalEntry {
  id: number;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  status: number;
  /** The declared route that answered (`threads.get`), or null when none did (404, 405). */
  route: string | null;
  /** The fault rule that hit this request, if one did (DESIGN §8). */
  fault: { id: string; kind: string } | null;
  received_at: string;
  duration_ms: number;
  /** What the mock noted while answering, when anything: the run and scenario, or why no scenario matched. */
  note?: Record<string, unknown>;
}

export interface JournalFilter {
  method?: string;
  /** A path prefix. */
  path?: string;
  /** The answer's status code. */
  status?: number;
  /** The declared route's name. */
  route?: string;
  /** The newest entries only. */
  limit?: number;
}

export interface JournalOptions {
  /** Entries kept; the oldest are dropped past it. */
  maxEntries: number;
  /** Bodies larger than this (in bytes, as sent) are kept as a truncated preview. */
  maxBodyBytes: number;
  /** Keep credentials (X-Api-Key, Authorization, Cookie headers, `client_secret` in bodies) in clear; off by default. */
  showSecrets: boolean;
}

export const DEFAULT_JOURNAL: JournalOptions = { maxEntries: 1000, maxBodyBytes: 64 * 1024, showSecrets: false };

/** A body as the journal keeps it: the text as sent, a truncated preview, or (no raw text) the parsed value. */
type StoredBody = { text: string } | { truncated: { $truncated: true; size: number; preview: string } } | { value: unknown };

/**
 * An entry as kept: the body as read, the time in epoch ms, and the query and headers as one JSON text
 * `[query, headers]` (both hold only strings and lists of strings, so the text gives them back exactly),
 * which `publicEntry` parses and redacts when the journal is read. An entry is a handful of heap
 * objects instead of a few dozen: entries outlive many garbage collections (a thousand are kept), and
 * promoting every request's header object and strings made each collection of a large mock's heap
 * cost a quarter of a plain read's CPU (docs/performance.md).
 */
type StoredEntry = Omit<JournalEntry, "body" | "received_at" | "headers" | "query"> & { stored: StoredBody; received_at: number; queryAndHeaders: string };

/** The stored body of every request without one (most of them). */
const NO_BODY: StoredBody = Object.freeze({ value: null });

/**
 * The request journal behind `GET /_mock/requests`. It keeps each body as the client sent it (the
 * text jsonBody() read; validation later trims and fills the parsed body in place), cut to a preview
 * past `maxBodyBytes`, so memory stays bounded by maxEntries × maxBodyBytes. Bodies are parsed again
 * only when the journal is read, which also hands every reader its own copy.
 * Admin routes (`/_mock…`) are never recorded.
 */
export class Journal {
  /**
   * The newest `maxEntries` entries: in order until full, then a ring whose oldest entry is at
   * `oldest` (dropping the oldest from the front moved a thousand entries on every request).
   */
  private entries: StoredEntry[] = [];
  private oldest = 0;
  private nextId = 1;
  /** Counts clear()s: a request that began before one is not recorded after it (it belongs to the test before the reset). */
  private cleared = 0;
  /** Told of each entry recorded; `read` builds the entry as list() returns it, only when called. */
  private readonly listeners = new Set<(read: () => JournalEntry) => void>();

  constructor(
    private readonly clock: MockClock,
    readonly options: JournalOptions = DEFAULT_JOURNAL,
  ) {}

  middleware(): RequestHandler {
    return (req, res, next) => {
      if (req.path.startsWith("/_mock")) return next();
      const started = this.clock.now();
      const startedReal = performance.now();
      // Read now: while a mounted router (say /api/v1) handles the request, req.path lacks its prefix.
      const path = req.path;
      const cleared = this.cleared;
      // A response emits "close" once, whether it finished or the client went away first: one
      // listener per request where "finish" and "close" took two (and `on`, as `once` wraps it).
      res.on("close", () => {
        if (cleared === this.cleared) this.safeRecord(req, path, res.statusCode, exchangeOf(res), started, performance.now() - startedReal);
      });
      next();
    };
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase();
    let matches = this.inOrder().filter(
      (e) =>
        (!method || e.method === method) &&
        (!filter.path || e.path.startsWith(filter.path)) &&
        (filter.status === undefined || e.status === filter.status) &&
        (filter.route === undefined || e.route === filter.route),
    );
    if (filter.limit !== undefined) matches = filter.limit <= 0 ? [] : matches.slice(-filter.limit);
    return matches.map((e) => publicEntry(e, this.options.showSecrets));
  }

  clear(): void {
    this.entries = [];
    this.oldest = 0;
    this.nextId = 1;
    this.cleared++;
  }

  /**
   * Runs in a response event, outside any handler: an exception here would end the process. The
   * journal is a diagnostic; an entry it cannot keep is kept without its body instead.
   */
  private safeRecord(req: Request, path: string, status: number, x: Exchange, started: number, durationMs: number): void {
    try {
      this.record(req, path, status, x, started, durationMs);
    } catch {
      try {
        this.record(req, path, status, x, started, durationMs, NO_BODY);
      } catch {
        // Nothing left to keep: the request is simply not journaled.
      }
    }
  }

  private record(req: Request, path: string, status: number, x: Exchange, started: number, durationMs: number, body?: StoredBody): void {
    const stored = body ?? this.storeBody(req);
    const entry: StoredEntry = {
      id: this.nextId++,
      method: req.method,
      path,
      queryAndHeaders: JSON.stringify([queryOf(x), req.headers]),
      stored,
      status,
      route: x.route?.spec.name ?? null,
      fault: x.fault ?? null,
      received_at: started,
      duration_ms: Math.round(durationMs * 1000) / 1000,
    };
    if (x.note) entry.note = x.note;
    this.keep(entry);
    if (this.listeners.size === 0) return;
    const read = () => publicEntry(entry, this.options.showSecrets);
    for (const listener of this.listeners) listener(read);
  }

  /** Tells `listener` of each entry recorded from now on (the change feed, `waitFor`); returns the unsubscribe. */
  subscribe(listener: (read: () => JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private keep(entry: StoredEntry): void {
    const max = this.options.maxEntries;
    if (this.entries.length < max) this.entries.push(entry);
    else if (max > 0) {
      this.entries[this.oldest] = entry;
      this.oldest = (this.oldest + 1) % max;
    }
  }

  /** The entries kept, oldest first. */
  private inOrder(): StoredEntry[] {
    return this.oldest === 0 ? this.entries : [...this.entries.slice(this.oldest), ...this.entries.slice(0, this.oldest)];
  }

  private storeBody(req: Request): StoredBody {
    const max = this.options.maxBodyBytes;
    const raw = rawBodyOf(req);
    const redact = (text: string) => (this.options.showSecrets ? text : redactBodyText(text));
    if (raw !== undefined) {
      const decode = bodyDecoder(req.headers["content-type"]);
      if (raw.length <= max) return { text: redact(decode(raw)) };
      return { truncated: { $truncated: true, size: raw.length, preview: redact(decode(raw.subarray(0, max))) } };
    }
    // A body some other parser read (the fixture MCP servers' forms): measured once, here. Form
    // parsers give flat objects; anything else that cannot be serialised is kept as null.
    const body = (req as { body?: unknown }).body;
    // Bytes (a tarball upload) are not text: the journal says how many there were.
    if (Buffer.isBuffer(body)) return { value: { $binary: true, size: body.length } };
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text === undefined) return NO_BODY;
    if (Buffer.byteLength(text) <= max) return { text: redact(text) };
    return { truncated: { $truncated: true, size: Buffer.byteLength(text), preview: redact(Buffer.from(text).subarray(0, max).toString("utf8")) } };
  }
}

/**
 * Decodes body bytes in the charset the parser read them in (a UTF-16 body is JSON to the services):
 * read as UTF-8, its credentials would escape redaction between the NUL bytes.
 */
function bodyDecoder(contentType: string | undefined): (bytes: Buffer) => string {
  const charset = /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  if (!charset || charset === "utf-8" || charset === "utf8") return (bytes) => bytes.toString("utf8");
  try {
    const decoder = new TextDecoder(charset);
    return (bytes) => decoder.decode(bytes);
  } catch {
    return (bytes) => bytes.toString("utf8");
  }
}

/** An entry as readers get it: their own copy, credentials redacted unless shown, the body parsed again. */
function publicEntry({ stored, ...e }: StoredEntry, showSecrets: boolean): JournalEntry {
  const [query, headers] = JSON.parse(e.queryAndHeaders) as [Record<string, unknown>, Record<string, unknown>];
  const entry: JournalEntry = {
    id: e.id,
    method: e.method,
    path: e.path,
    query,
    headers: showSecrets ? headers : redactHeaders(headers),
    body: bodyOf(stored),
    status: e.status,
    route: e.route,
    fault: e.fault && { ...e.fault },
    received_at: formatTimestamp(e.received_at),
    duration_ms: e.duration_ms,
  };
  if (e.note) entry.note = structuredClone(e.note);
  return entry;
}

function bodyOf(stored: StoredBody): unknown {
  if ("truncated" in stored) return { ...stored.truncated };
  if ("value" in stored) return stored.value === null ? null : structuredClone(stored.value);
  if (stored.text === "") return null;
  // Too deep to serialise again in the listing (the service refused it with a 422): the text as sent.
  if (jsonTextDepth(stored.text) > MAX_DEPTH) return stored.text;
  try {
    return JSON.parse(stored.text);
  } catch {
    // Malformed JSON (the service answered 422): the text as sent.
    return stored.text;
  }
}
