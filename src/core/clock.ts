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

/**
 * The clock's range: what the services' timestamps can say (`9999-12-31T23:59:59.999000+00:00`, the
 * end of Python's datetime and of RFC 3339's four-digit years). The clock never passes it, and no
 * stored time is outside it.
 */
export const MAX_INSTANT = 253_402_300_799_999;
/** `0001-01-01T00:00:00Z`, the first instant a timestamp can say. */
export const MIN_INSTANT = -62_135_596_800_000;

/** Whether an instant is one the clock can hold (every stored time must be; see `instantAfter`). */
export function inClockRange(instant: number): boolean {
  return instant >= MIN_INSTANT && instant <= MAX_INSTANT;
}

/**
 * `start + ms` when the clock can hold it, else undefined: every time sum a request asks for is
 * checked with this, so that one past the last instant is refused (4xx) instead of stored.
 */
export function instantAfter(start: number, ms: number): number | undefined {
  const sum = start + ms;
  return inClockRange(sum) ? sum : undefined;
}

/**
 * `start + ms`, held at the clock's range: for the mock's own lifetimes (a code valid 10 minutes,
 * a flow's expiry), which near the last instant simply end there.
 */
export function instantAfterClamped(start: number, ms: number): number {
  const sum = start + ms;
  return Number.isNaN(sum) ? MAX_INSTANT : Math.max(MIN_INSTANT, Math.min(MAX_INSTANT, sum));
}

/** Where a seeded mock's clock starts, unless the options say otherwise. */
export const DEFAULT_FIXED_START = Date.parse("2026-01-15T09:00:00.000Z");

/** The longest timeout node keeps (2^31-1 ms, about 24.8 days). */
const MAX_TIMEOUT = 2_147_483_647;

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
    if (this.mode === "fixed") return this.fixedNow;
    // Wall time keeps going: a real clock set near its last instant stays there instead of passing it.
    return Math.min(Date.now() + this.offset, MAX_INSTANT);
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError("the clock only moves forward");
    // Past the last instant no timestamp could be written: every request would fail.
    if (this.now() + ms > MAX_INSTANT) {
      throw new RangeError(`the clock cannot move past ${new Date(MAX_INSTANT).toISOString()}; advance ${ms} ms goes beyond it`);
    }
    if (this.mode === "fixed") this.fixedNow += ms;
    else this.offset = this.now() + ms - Date.now();
    this.changed("advance");
  }

  set(instant: number, cause: ClockChange = "set"): void {
    // The same bound as advance(): an instant no timestamp can say would make every answer wrong.
    if (!Number.isFinite(instant) || !inClockRange(instant)) {
      throw new RangeError(`the clock can only be set between ${new Date(MIN_INSTANT).toISOString()} and ${new Date(MAX_INSTANT).toISOString()}; got ${instant} ms`);
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
        this.arm(sleeper);
      } else if (this.autoAdvance) {
        this.schedulePump();
      } else if (ms <= 0) {
        setImmediate(() => this.wakeDue());
      }
    });
  }

  /** A real-time sleeper's timer; node fires a longer timeout than 2^31-1 ms after 1 ms, so long waits re-arm. */
  private arm(sleeper: Sleeper): void {
    const left = Math.max(0, sleeper.due - this.now());
    sleeper.timer = setTimeout(() => (sleeper.due - this.now() > 0 && left > MAX_TIMEOUT ? this.arm(sleeper) : sleeper.resolve()), Math.min(left, MAX_TIMEOUT));
  }

  /**
   * A delay the mock chose to add (a latency or drip fault): like sleep(), but one that would pass the
   * last instant ends there, so the answer still comes (at that instant) instead of never.
   */
  delay(ms: number, signal?: AbortSignal): Promise<void> {
    return this.sleep(Math.max(0, Math.min(ms, MAX_INSTANT - this.now())), signal);
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
const STAMP = Buffer.from("0000-00-00T00:00:00.000000+00:00", "latin1");
const dayPrefixes = new Map<number, string>();

export function formatTimestamp(ms: number): string {
  // Hot when generating records (several stamps each): the date part is cached per day and the time
  // of day built from integers. Before 1970 (and for odd inputs) Date formats it, held to the clock's
  // range: a read never fails, nor says a year no client can parse, because of a time that was stored.
  if (!(ms >= 0 && ms <= MAX_INSTANT)) return new Date(instantAfterClamped(ms, 0)).toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
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
