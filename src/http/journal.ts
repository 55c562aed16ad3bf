import type { Request, RequestHandler } from "express";
import type { MockClock } from "../core/clock.js";
import { formatTimestamp } from "../core/clock.js";

export interface JournalEntry {
  id: number;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  status: number;
  received_at: string;
  duration_ms: number;
}

export interface JournalFilter {
  method?: string;
  /** A path prefix. */
  path?: string;
  limit?: number;
}

export interface JournalOptions {
  /** Entries kept; the oldest are dropped past it. */
  maxEntries: number;
  /** Bodies larger than this (in bytes of JSON) are kept as a truncated preview. */
  maxBodyBytes: number;
}

export const DEFAULT_JOURNAL: JournalOptions = { maxEntries: 1000, maxBodyBytes: 64 * 1024 };

/**
 * The request journal behind `GET /_mock/requests`. Recording costs a few property reads per
 * request: the parsed body is kept by reference (bodies are parsed per request and never changed
 * afterwards) and only a body whose length exceeds the cap, or is not declared, is serialised.
 * Admin routes (`/_mock…`) are never recorded.
 */
export class Journal {
  private entries: JournalEntry[] = [];
  private nextId = 1;

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
      res.on("finish", () => this.record(req, path, res.statusCode, started, performance.now() - startedReal));
      res.on("close", () => {
        if (!res.writableFinished) this.record(req, path, res.statusCode, started, performance.now() - startedReal);
      });
      next();
    };
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase();
    const matches = this.entries.filter((e) => (!method || e.method === method) && (!filter.path || e.path.startsWith(filter.path)));
    if (filter.limit === undefined) return matches;
    return filter.limit <= 0 ? [] : matches.slice(-filter.limit);
  }

  clear(): void {
    this.entries = [];
    this.nextId = 1;
  }

  private record(req: Request, path: string, status: number, started: number, durationMs: number): void {
    const entry: JournalEntry = {
      id: this.nextId++,
      method: req.method,
      path,
      query: req.query as Record<string, unknown>,
      headers: req.headers as Record<string, unknown>,
      body: this.capBody(req),
      status,
      received_at: formatTimestamp(started),
      duration_ms: Math.round(durationMs * 1000) / 1000,
    };
    this.entries.push(entry);
    if (this.entries.length > this.options.maxEntries) this.entries.splice(0, this.entries.length - this.options.maxEntries);
  }

  private capBody(req: Request): unknown {
    const body = (req as { body?: unknown }).body;
    if (body === undefined) return null;
    // The declared length spares serialising small bodies; a chunked body declares none and is measured.
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) <= this.options.maxBodyBytes) return body;
    const text = JSON.stringify(body) ?? "";
    if (text.length <= this.options.maxBodyBytes) return body;
    return { $truncated: true, size: text.length, preview: text.slice(0, this.options.maxBodyBytes) };
  }
}
