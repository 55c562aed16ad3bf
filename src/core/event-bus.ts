/** One change of the mock, as `GET /_mock/events` sends it. */
export interface BusEvent {
  /** Increasing within one mock; the SSE `id`. */
  seq: number;
  type: string;
  data: unknown;
}

export type BusListener = (event: BusEvent) => void;

/**
 * The mock's own change feed (runs, feedback, requests, scenarios, clock, reset, deployments) that
 * the inspector and other tools follow. Services call `emit()` on every change, so it must cost
 * nothing when nobody listens: the payload is a function, called only when there is a listener.
 */
export class EventBus {
  private readonly listeners = new Set<BusListener>();
  private seq = 0;

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  emit(type: string, data: () => unknown): void {
    if (this.listeners.size === 0) return;
    const event: BusEvent = { seq: ++this.seq, type, data: data() };
    for (const listener of this.listeners) {
      // A listener that throws (a stream that broke) must not break the service that changed something.
      try {
        listener(event);
      } catch {
        this.listeners.delete(listener);
      }
    }
  }

  /** Follows every change from now on; returns the unsubscribe. */
  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
