/**
 * The mock's clock. Every timestamp the mock writes and every wait it makes (stream delays, heartbeats,
 * token expiry, deployment lifecycle) reads this clock, so tests move time instead of sleeping.
 *
 * - "fixed" (used with a seed): starts at a fixed instant and moves only when advanced. A `sleep()` on
 *   a fixed clock jumps the clock forward to its deadline (virtual time) unless `autoAdvance` is off,
 *   in which case it waits until a test advances the clock past the deadline.
 * - "real" (no seed): wall time plus whatever offset tests added with `advance()`/`set()`.
 */
export type ClockMode = "fixed" | "real";

/** What moved the clock: a test (`advance`, `set`), `reset()`, or a sleep's virtual-time jump. */
export type ClockChange = "advance" | "set" | "reset" | "sleep";

export interface ClockOptions {
  mode: ClockMode;
  /** Start instant for a fixed clock (ms since epoch). */
  start?: number;
  /** Fixed clock only: whether a sleep moves time forward by itself (default true). */
  autoAdvance?: boolean;
}

/** The last instant a JavaScript Date can hold (+275760-09-13T00:00:00Z); the clock never passes it. */
export const MAX_INSTANT = 8.64e15;

/** Where a seeded mock's clock starts, unless the options say otherwise. */
export const DEFAULT_FIXED_START = Date.parse("2026-01-15T09:00:00.000Z");

interface Sleeper {
  due: number;
  seq: number;
  resolve: () => void;
  timer?: NodeJS.Timeout;
}

export class MockClock {
  readonly mode: ClockMode;
  autoAdvance: boolean;
  private readonly start: number;
  private fixedNow: number;
  private offset = 0;
  private sleepers: Sleeper[] = [];
  private seq = 0;
  private pumpScheduled = false;
  private listeners = new Set<(now: number, cause: ClockChange) => void>();

  constructor(options: ClockOptions) {
    this.mode = options.mode;
    this.start = options.start ?? DEFAULT_FIXED_START;
    this.fixedNow = this.start;
    this.autoAdvance = options.autoAdvance ?? true;
  }

  now(): number {
    return this.mode === "fixed" ? this.fixedNow : Date.now() + this.offset;
  }

  /** The current time as the Python services write it: microseconds and an explicit UTC offset. */
  isoNow(): string {
    return formatTimestamp(this.now());
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError("the clock only moves forward");
    // Past the last instant a Date can hold no timestamp could be written: every request would fail.
    if (this.now() + ms > MAX_INSTANT) {
      throw new RangeError(`the clock cannot move past ${new Date(MAX_INSTANT).toISOString()}; advance ${ms} ms goes beyond it`);
    }
    if (this.mode === "fixed") this.fixedNow += ms;
    else this.offset += ms;
    this.changed("advance");
  }

  set(instant: number, cause: ClockChange = "set"): void {
    // The same bound as advance(): an instant no Date can hold would make every timestamp throw.
    if (!Number.isFinite(instant) || Math.abs(instant) > MAX_INSTANT) {
      throw new RangeError(`the clock can only be set between ${new Date(-MAX_INSTANT).toISOString()} and ${new Date(MAX_INSTANT).toISOString()}; got ${instant} ms`);
    }
    if (this.mode === "fixed") this.fixedNow = instant;
    else this.offset = instant - Date.now();
    this.changed(cause);
  }

  /**
   * Back to the instant the clock started at (fixed) or to wall time (real). A sleeper still waiting
   * keeps the time it had left, counted from the new now: its old deadline belongs to the time
   * before the reset and must not drag the clock back there.
   */
  reset(): void {
    const shift = this.mode === "fixed" ? this.start - this.fixedNow : -this.offset;
    for (const sleeper of this.sleepers) sleeper.due += shift;
    this.fixedNow = this.start;
    this.offset = 0;
    this.changed("reset");
  }

  /**
   * Resolves once the clock has reached now + ms; rejects with the signal's reason if aborted, and
   * with a RangeError when now + ms is past the last representable instant (such a deadline could
   * never be reached: waiting for it would spin or hang).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (Number.isNaN(ms) || this.now() + ms > MAX_INSTANT) {
      return Promise.reject(new RangeError(`a wait of ${ms} ms goes past ${new Date(MAX_INSTANT).toISOString()}, the last instant the clock can hold`));
    }
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = { due: Math.min(this.now() + Math.max(0, ms), MAX_INSTANT), seq: this.seq++, resolve: () => finish() };
      const finish = () => {
        this.remove(sleeper);
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        this.remove(sleeper);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.sleepers.push(sleeper);
      if (this.mode === "real") {
        sleeper.timer = setTimeout(finish, Math.max(0, ms));
      } else if (this.autoAdvance) {
        this.schedulePump();
      } else if (ms <= 0) {
        setImmediate(() => this.wakeDue());
      }
    });
  }

  /**
   * Virtual time on an auto-advancing fixed clock. Each step first lets every request already in
   * flight take its turn (setImmediate), so concurrent work interleaves the same way each run; then
   * it moves the clock to the earliest pending deadline only, never past it, so concurrent sleepers
   * wake in deadline order, each at its own deadline. Steps repeat while anyone is still asleep.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      if (this.mode !== "fixed" || !this.autoAdvance || this.sleepers.length === 0) return;
      const next = Math.min(...this.sleepers.map((s) => s.due));
      if (this.fixedNow < next) this.set(next, "sleep");
      else this.wakeDue();
      if (this.sleepers.length) this.schedulePump();
    });
  }

  /**
   * Called with the new time whenever the clock is moved by advance(), set() or reset(), and with the
   * cause, so that a listener can tell a test moving time from a sleep's virtual-time jump.
   */
  onChange(listener: (now: number, cause: ClockChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(cause: ClockChange): void {
    this.wakeDue();
    for (const listener of this.listeners) listener(this.now(), cause);
  }

  private wakeDue(): void {
    const now = this.now();
    const due = this.sleepers.filter((s) => s.due <= now).sort((a, b) => a.due - b.due || a.seq - b.seq);
    for (const sleeper of due) sleeper.resolve();
  }

  private remove(sleeper: Sleeper): void {
    if (sleeper.timer) clearTimeout(sleeper.timer);
    const i = this.sleepers.indexOf(sleeper);
    if (i >= 0) this.sleepers.splice(i, 1);
  }
}

/** `2026-01-15T09:00:00.000000+00:00`: the form the real (Python) services use on the wire. */
const DAY = 86_400_000;
const YEAR_10000 = 253_402_300_800_000;
const STAMP = Buffer.from("0000-00-00T00:00:00.000000+00:00", "latin1");
const dayPrefixes = new Map<number, string>();

export function formatTimestamp(ms: number): string {
  // Hot when generating records (several stamps each): the date part is cached per day and the time
  // of day built from integers. Outside 1970–9999 (and for odd inputs) Date formats it.
  if (!(ms >= 0 && ms < YEAR_10000)) return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
  const day = Math.floor(ms / DAY);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY).toISOString().slice(0, 11);
    if (dayPrefixes.size < 20_000) dayPrefixes.set(day, prefix);
  }
  let rest = Math.floor(ms - day * DAY);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  // Written as bytes and read back as one flat string: a template literal would leave a tree of
  // string pieces, several times the memory of the 32 characters, on every stored record.
  const out = STAMP;
  out.write(prefix, 0, "latin1");
  out[11] = 48 + ((hours / 10) | 0);
  out[12] = 48 + (hours % 10);
  out[14] = 48 + ((minutes / 10) | 0);
  out[15] = 48 + (minutes % 10);
  out[17] = 48 + ((seconds / 10) | 0);
  out[18] = 48 + (seconds % 10);
  out[20] = 48 + ((millis / 100) | 0);
  out[21] = 48 + (((millis / 10) | 0) % 10);
  out[22] = 48 + (millis % 10);
  return out.toString("latin1", 0, 32);
}
