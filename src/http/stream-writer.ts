/** Wall-clock time a stream may stay unread (its socket buffer full) before it is dropped. */
export const DEFAULT_STREAM_STALL_MS = 30_000;

/** The part of a response a StreamWriter uses (a Writable). */
export interface StreamSink {
  write(chunk: string): boolean;
  once(event: "drain" | "close", listener: () => void): unknown;
  removeListener(event: "drain", listener: () => void): unknown;
  destroy(): unknown;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
}

/**
 * Bytes of events a stream may hold for a client that is not reading (its socket full) before the
 * client is dropped, whatever the stall time: one client must not hold the process's memory.
 */
export const STREAM_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * Writes a stream with backpressure. Once write() returns false, nothing more is handed to the
 * socket until it drains: events wait in order (a run's events are few and kept anyway), heartbeats
 * are skipped (they only keep an idle connection open, and a client that does not read would
 * otherwise make them pile up without bound). A client that has not read for `stallMs` of wall time
 * is dropped: the response is destroyed, which closes the stream like a client disconnect.
 * Backpressure is real I/O, so this bound is wall time, not the mock's clock.
 */
export class StreamWriter {
  /** Events waiting for the socket to drain; made on the first wait (most streams never wait). */
  private queue: string[] | undefined;
  /** Their size in UTF-16 code units (about bytes for the JSON of events). */
  private queued = 0;
  private waiting = false;
  private wrote = false;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: StreamSink,
    private readonly stallMs: number = DEFAULT_STREAM_STALL_MS,
    private readonly maxQueued: number = STREAM_BUFFER_BYTES,
  ) {}

  /** An event (kept for when the socket drains; past the buffer limit the client is dropped). */
  event(text: string): void {
    if (this.closed()) return;
    if (!this.waiting) return this.send(text);
    (this.queue ??= []).push(text);
    this.queued += text.length;
    if (this.queued > this.maxQueued) this.drop();
  }

  /** A heartbeat comment: written only while the client keeps up. */
  heartbeat(text: string): void {
    if (!this.closed() && !this.waiting) this.send(text);
  }

  /** Whether anything was handed to the socket yet (and with it the response head). */
  get started(): boolean {
    return this.wrote;
  }

  /** Whether events are waiting for the socket to drain. */
  get paused(): boolean {
    return this.waiting;
  }

  /** Calls `then` once everything queued has been handed to the socket (at once when nothing is). */
  flushed(then: () => void): void {
    if (!this.waiting) return then();
    (this.afterFlush ??= []).push(then);
  }

  private afterFlush: (() => void)[] | undefined;

  private closed(): boolean {
    return this.sink.writableEnded || this.sink.destroyed;
  }

  private send(text: string): void {
    this.wrote = true;
    if (this.sink.write(text)) return;
    this.waiting = true;
    this.sink.once("drain", (this.onDrain ??= () => this.drained()));
    this.stallTimer = setTimeout(() => this.drop(), this.stallMs);
    this.stallTimer.unref?.();
    // A connection that closes meanwhile never drains: the timer would hold the response (and the mock) for stallMs.
    if (!this.onClose) this.sink.once("close", (this.onClose = () => clearTimeout(this.stallTimer)));
  }

  /** The "close" listener, made on the first wait. */
  private onClose: (() => void) | undefined;

  /** The "drain" listener, made on the first wait. */
  private onDrain: (() => void) | undefined;

  private drained(): void {
    clearTimeout(this.stallTimer);
    this.waiting = false;
    const queue = this.queue;
    while (queue?.length && !this.waiting && !this.closed()) {
      const text = queue.shift() as string;
      this.queued -= text.length;
      this.send(text);
    }
    if (!this.waiting && this.afterFlush) for (const then of this.afterFlush.splice(0)) then();
  }

  private drop(): void {
    if (this.onDrain) this.sink.removeListener("drain", this.onDrain);
    this.queue = undefined;
    this.queued = 0;
    this.afterFlush = undefined;
    this.sink.destroy();
  }
}
