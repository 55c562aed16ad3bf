import { describe, expect, it } from "vitest";
import { MockClock, formatTimestamp } from "../../src/core/clock.js";

describe("MockClock", () => {
  it("a fixed clock starts at its start instant and moves only when told", () => {
    const clock = new MockClock({ mode: "fixed", start: Date.parse("2026-01-15T09:00:00Z") });
    expect(formatTimestamp(clock.now())).toBe("2026-01-15T09:00:00.000000+00:00");
    clock.advance(90_000);
    expect(formatTimestamp(clock.now())).toBe("2026-01-15T09:01:30.000000+00:00");
    clock.set(Date.parse("2027-03-01T00:00:00Z"));
    expect(formatTimestamp(clock.now())).toBe("2027-03-01T00:00:00.000000+00:00");
    clock.reset();
    expect(formatTimestamp(clock.now())).toBe("2026-01-15T09:00:00.000000+00:00");
  });

  it("refuses to move backwards by advance()", () => {
    const clock = new MockClock({ mode: "fixed" });
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it("a sleep on a fixed auto-advancing clock jumps the clock to its deadline", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0 });
    await clock.sleep(5000);
    expect(clock.now()).toBe(5000);
  });

  it("concurrent sleepers on an auto-advancing clock wake in deadline order, each at its own deadline", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0 });
    const woke: string[] = [];
    await Promise.all([
      clock.sleep(100).then(() => woke.push(`A@${clock.now()}`)),
      clock.sleep(50).then(() => woke.push(`B@${clock.now()}`)),
      clock.sleep(50).then(() => woke.push(`C@${clock.now()}`)),
    ]);
    expect(woke).toEqual(["B@50", "C@50", "A@100"]);
  });

  it("a sleeper that sleeps again after waking still wakes before a later deadline", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0 });
    const woke: string[] = [];
    const chain = async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(30);
        woke.push(`tick@${clock.now()}`);
      }
    };
    await Promise.all([chain(), clock.sleep(100).then(() => woke.push(`long@${clock.now()}`))]);
    expect(woke).toEqual(["tick@30", "tick@60", "tick@90", "long@100"]);
  });

  it("an aborted sleeper does not move an auto-advancing clock", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0 });
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error("gone"));
    await expect(sleeping).rejects.toThrow("gone");
    await new Promise((r) => setImmediate(r));
    expect(clock.now()).toBe(0);
  });

  it("reset() while a sleeper waits keeps the clock at its start; the sleeper keeps the time it had left", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0 });
    clock.advance(500);
    let wokeAt: number | undefined;
    const sleeping = clock.sleep(1000).then(() => (wokeAt = clock.now()));
    clock.reset();
    expect(clock.now()).toBe(0);
    await sleeping;
    expect(wokeAt).toBe(1000);
  });

  it("without auto-advance, reset() while sleeping neither wakes the sleeper nor moves the clock", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0, autoAdvance: false });
    clock.advance(500);
    let woke = false;
    const sleeping = clock.sleep(1000).then(() => (woke = true));
    clock.reset();
    await new Promise((r) => setImmediate(r));
    expect([woke, clock.now()]).toEqual([false, 0]);
    clock.advance(999);
    await new Promise((r) => setImmediate(r));
    expect(woke).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(woke).toBe(true);
  });

  it("without auto-advance a sleep waits until the clock is advanced past its deadline", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0, autoAdvance: false });
    let woke = false;
    const sleeping = clock.sleep(1000).then(() => (woke = true));
    await new Promise((r) => setImmediate(r));
    expect(woke).toBe(false);
    clock.advance(999);
    await new Promise((r) => setImmediate(r));
    expect(woke).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(woke).toBe(true);
  });

  it("an aborted sleep rejects with the signal's reason", async () => {
    const clock = new MockClock({ mode: "fixed", start: 0, autoAdvance: false });
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error("client went away"));
    await expect(sleeping).rejects.toThrow("client went away");
  });

  it("a real clock can be advanced, and wakes sleepers it passes", async () => {
    const clock = new MockClock({ mode: "real" });
    const before = clock.now();
    const sleeping = clock.sleep(60_000);
    clock.advance(60_000);
    await sleeping;
    expect(clock.now() - before).toBeGreaterThanOrEqual(60_000);
  });

  it("formats timestamps as the Python services do", () => {
    expect(formatTimestamp(Date.parse("2024-05-22T10:35:26.657Z"))).toBe("2024-05-22T10:35:26.657000+00:00");
  });
});
