import type { StreamFault } from "../http/faults.js";
import type { SseSink } from "../http/route.js";
import { sseFrame } from "./sse.js";

/** A frame no SSE client can use: its data is JSON cut short, so the client's parser fails, not its transport. */
export const BAD_FRAME = 'event: values\r\ndata: {"__fault__": "bad_frame", "cut\r\n\r\n';

/** What the writer asks of the stream's owner when a fault ends or freezes the stream. */
export interface StreamHooks {
  /** Stop following the run (nothing more will be written). */
  stop(): void;
  /** Close the connection with no ending (no final chunk). */
  drop(): void;
  /** End the body. */
  endBody(): void;
}

/**
 * Writes one run stream, and the stream fault it was given (DESIGN §8) once `afterEvents` events are
 * on the wire (`metadata` included): `cut` closes the connection with no ending, `stall` writes
 * nothing more (heartbeats neither) and leaves the connection open, `bad_frame` writes one malformed
 * frame and goes on, `error_event` writes an `error` event and ends the stream. Without a fault it
 * only writes. Writes go to the stream's sink (with backpressure), and endings wait for it to flush.
 */
export class FaultyStreamWriter {
  /** Nothing more is written, and the run need not be followed. */
  stopped = false;
  private written = 0;

  constructor(
    private readonly out: SseSink,
    private readonly fault: StreamFault | undefined,
    private readonly hooks: StreamHooks,
  ) {}

  /** Before the first event: a fault after 0 events applies at once. */
  start(): void {
    if (this.fault && this.fault.afterEvents === 0) this.apply(this.fault);
  }

  event(text: string): void {
    if (this.stopped) return;
    this.out.event(text);
    this.written++;
    if (this.fault && this.written === this.fault.afterEvents) this.apply(this.fault);
  }

  heartbeat(text: string): void {
    if (!this.stopped) this.out.heartbeat(text);
  }

  /** The run is over: end the stream (`dropped`: close it with no ending), unless a fault got there first. */
  end(dropped: boolean): void {
    if (this.stopped) return;
    this.stopped = true;
    this.out.flushed(() => (dropped ? this.hooks.drop() : this.hooks.endBody()));
  }

  private apply(fault: StreamFault): void {
    switch (fault.kind) {
      case "bad_frame":
        this.out.raw(BAD_FRAME);
        return;
      case "cut":
        this.halt();
        this.out.flushed(() => this.hooks.drop());
        return;
      case "stall":
        // The client sees a live connection that never says anything again (not even a heartbeat).
        this.halt();
        return;
      case "error_event":
        this.out.event(sseFrame("error", JSON.stringify({ error: fault.error, message: fault.message })));
        this.halt();
        this.out.flushed(() => this.hooks.endBody());
        return;
    }
  }

  private halt(): void {
    this.stopped = true;
    this.hooks.stop();
  }
}
