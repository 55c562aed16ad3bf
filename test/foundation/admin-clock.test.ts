import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp, mockOf } from "../../src/index.js";

const START = "2026-01-15T09:00:00.000000+00:00";

describe("GET and POST /_mock/clock", () => {
  it("tells the time and how the clock runs", async () => {
    const res = await request(createApp({ seed: 1, fixtures: false })).get("/_mock/clock");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ now: START, mode: "fixed", auto_advance: true, lifecycle: "immediate" });
  });

  it("advances by a duration or a number of ms, and sets an instant", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    expect((await request(app).post("/_mock/clock").send({ advance: "1h30m" })).body.now).toBe("2026-01-15T10:30:00.000000+00:00");
    expect((await request(app).post("/_mock/clock").send({ advance: 1500 })).body.now).toBe("2026-01-15T10:30:01.500000+00:00");
    expect((await request(app).post("/_mock/clock").send({ set: "2027-03-01T00:00:00Z" })).body.now).toBe("2027-03-01T00:00:00.000000+00:00");
  });

  it("refuses what it cannot do with 400 saying what to send, and leaves the clock alone", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    const cases: [unknown, string][] = [
      [{}, 'Send {"advance": "<duration, e.g. 5m or 1500ms>"} or {"set": "<ISO instant>"}'],
      [{ advance: "1m", set: "2026-01-01T00:00:00Z" }, 'Send {"advance": "<duration, e.g. 5m or 1500ms>"} or {"set": "<ISO instant>"}'],
      [{ advance: "soon" }, 'advance must be a duration such as "250ms", "5s", "5m", "1h" or a number of milliseconds; got "soon"'],
      [{ advance: -5 }, 'advance must be a duration such as "250ms", "5s", "5m", "1h" or a number of milliseconds; got -5'],
      [{ set: "yesterday" }, 'set must be an ISO 8601 instant; got "yesterday"'],
      // Past the last instant a timestamp can say, no timestamp could be written any more.
      [{ advance: 1e308 }, "the clock cannot move past 9999-12-31T23:59:59.999Z; advance 1e+308 ms goes beyond it"],
      [{ advance: `${"9".repeat(20)}d` }, `the clock cannot move past 9999-12-31T23:59:59.999Z; advance ${Number("9".repeat(20)) * 86_400_000} ms goes beyond it`],
    ];
    for (const [body, detail] of cases) {
      const res = await request(app).post("/_mock/clock").send(body as object);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([400, { detail }]);
    }
    expect((await request(app).get("/_mock/clock")).body.now).toBe(START);
    // The services still write timestamps.
    expect((await request(app).post("/api/v1/feedback").send({ key: "k", run_id: null })).body.created_at).toBe(START);
  });

  it("the library's clock refuses the same way and stays usable", () => {
    const control = mockOf(createApp({ seed: 1, fixtures: false }));
    expect(() => control.clock.advance(1e308)).toThrow(RangeError);
    expect(() => control.clock.set("+275760-09-13T00:00:00.001Z")).toThrow(TypeError);
    expect(control.clock.now().toISOString()).toBe("2026-01-15T09:00:00.000Z");
  });
});
