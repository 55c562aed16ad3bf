/** Wall-clock time a stream may stay unread (its socket buffer full) before it is dropped. */
export const DEFAULT_STREAM_STALL_MS = 30_000;

/** The part of a response a StreamWriter uses (a Writable). */
export interface StreamSink {
  write(chunk: string): boolean;
  once(event: "drain", listener: () => void): unknown;
  removeListener(event: "drain", listener: () => void): unknown;
  destroy(): unknown;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
}

/**
 * Writes a stream with backpressure. Once write() returns false, nothing more is handed to the
 * socket until it drains: events wait in order (a run's events are few and kept anyway), heartbeats
 * are skipped (they only keep an idle connection open, and a client that does not read would
 * otherwise make them pile up without bound). A client that has not read for `stallMs` of wall time
 * is dropped: the response is destroyed, which closes the stream like a client disconnect.
 * Backpressure is real I/O, so this bound is wall time, not the mock's clock.
 *
 * What is written in one turn of the event loop after its first write (a run without delays
 * publishes all its events in one) is handed to the socket as one write at the end of that turn:
 * one HTTP chunk instead of one per event. The bytes of the stream are the same, and so is when they
 * leave: node's HTTP response holds a turn's writes until then anyway (it corks the socket), but
 * frames each write as a chunk of its own, which costs a buffer per piece in the socket's write.
 */
export class StreamWriter {
  /** Events waiting for the socket to drain; made on the first wait (most streams never wait). */
  private queue: string[] | undefined;
  private waiting = false;
  private wrote = false;
  /** What this turn wrote after its first write, handed to the socket at the turn's end; undefined when no turn is open. */
  private batch: string | undefined;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: StreamSink,
    private readonly stallMs: number = DEFAULT_STREAM_STALL_MS,
  ) {}

  /** An event (kept for when the socket drains). */
  event(text: string): void {
    if (this.closed()) return;
    if (this.waiting) (this.queue ??= []).push(text);
    else this.write(text);
  }

  /** A heartbeat comment: written only while the client keeps up. */
  heartbeat(text: string): void {
    if (!this.closed() && !this.waiting) this.write(text);
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
    this.endBatch();
    if (!this.waiting) return then();
    (this.afterFlush ??= []).push(then);
  }

  private afterFlush: (() => void)[] | undefined;

  private closed(): boolean {
    return this.sink.writableEnded || this.sink.destroyed;
  }

  /** The first write of a turn goes out at once (so write()'s answer is known), the rest of the turn in one write at its end. */
  private write(text: string): void {
    if (this.batch !== undefined) {
      this.batch += text;
      return;
    }
    this.send(text);
    if (this.waiting) return;
    this.batch = "";
    process.nextTick(this.endBatch);
  }

  private readonly endBatch = (): void => {
    const text = this.batch;
    this.batch = undefined;
    if (text && !this.closed()) this.send(text);
  };

  private send(text: string): void {
    this.wrote = true;
    if (this.sink.write(text)) return;
    this.waiting = true;
    this.sink.once("drain", (this.onDrain ??= () => this.drained()));
    this.stallTimer = setTimeout(() => this.drop(), this.stallMs);
    this.stallTimer.unref?.();
  }

  /** The "drain" listener, made on the first wait. */
  private onDrain: (() => void) | undefined;

  private drained(): void {
    clearTimeout(this.stallTimer);
    this.waiting = false;
    const queue = this.queue;
    while (queue?.length && !this.waiting && !this.closed()) this.send(queue.shift() as string);
    if (!this.waiting && this.afterFlush) for (const then of this.afterFlush.splice(0)) then();
  }

  private drop(): void {
    if (this.onDrain) this.sink.removeListener("drain", this.onDrain);
    this.queue = undefined;
    this.afterFlush = undefined;
    this.sink.destroy();
  }
}
