import { describe, expect, it } from "vitest";
import request from "supertest";
import { mockOf } from "../../src/index.js";
import { appForFile } from "../support/app-presets.js";

const ROOT = "0198c0de-2700-7000-8000-000000000001";
const CHILD = "0198c0de-2700-7000-8000-000000000002";
const FEEDBACK = "0198c0de-2700-7000-8000-000000000003";

const error = "expected ISO 8601 text or epoch milliseconds from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z";
/** The 422 entry for a time no timestamp can hold, at `loc`. */
const timeIssue = (loc: (string | number)[], input: unknown) => ({ type: "datetime_parsing", loc, msg: `Input should be a valid datetime, ${error}`, input, ctx: { error } });

/** Past either end of the clock's range, beyond what a Date holds, or text no client writes for a time. */
const BAD_TIMES: unknown[] = [1e20, 8640000000000001, -1e20, 1e308, 253_402_300_800_000, "NaN", "1e400", "+099999-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "9999-12-31T23:59:59-01:00", "2026-02-30T00:00:00Z", "2026-01-15T24:00:00Z", "Jan 15 2026", "1"];

const run = (extra: Record<string, unknown> = {}) => ({ id: ROOT, name: "agent", run_type: "chain", ...extra });

function multipart(parts: { name: string; data: unknown }[], boundary = "----LangSmithFormBoundarytimes"): { body: Buffer; type: string } {
  const text = parts.map((p) => `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(p.data)}\r\n`).join("");
  return { body: Buffer.from(`${text}--${boundary}--\r\n`), type: `multipart/form-data; boundary=${boundary}` };
}

describe("run times the clock cannot hold are refused with FastAPI's 422, and nothing is stored", () => {
  const app = appForFile("tracing");
  const mock = mockOf(app);
  const stored = async () => (await request(app).get("/_mock/traces")).body.count;

  it.each(BAD_TIMES)("POST /runs with start_time %j", async (time) => {
    const res = await request(app).post("/api/v1/runs").send(run({ start_time: time }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [timeIssue(["body", "start_time"], time)] });
    expect(await stored()).toBe(0);
  });

  it("POST /runs names every bad time at once; a child run under a stored parent is refused too", async () => {
    const both = await request(app).post("/api/v1/runs").send(run({ start_time: "NaN", end_time: 1e20 }));
    expect(both.body).toEqual({ detail: [timeIssue(["body", "start_time"], "NaN"), timeIssue(["body", "end_time"], 1e20)] });
    await request(app).post("/api/v1/runs").send(run()).expect(202);
    const child = await request(app).post("/api/v1/runs").send({ id: CHILD, name: "search", run_type: "tool", parent_run_id: ROOT, start_time: 1e20 });
    expect(child.status).toBe(422);
    expect(child.body).toEqual({ detail: [timeIssue(["body", "start_time"], 1e20)] });
    expect(mock.traces().map((t) => t.id)).toEqual([ROOT]);
  });

  it("POST /runs/batch: one bad time refuses the whole batch, the good run included", async () => {
    const res = await request(app)
      .post("/api/v1/runs/batch")
      .send({ post: [run(), { id: CHILD, name: "search", run_type: "tool", start_time: 1e20 }], patch: [{ id: ROOT, end_time: "+099999-01-01T00:00:00Z" }] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [timeIssue(["body", "post", 1, "start_time"], 1e20), timeIssue(["body", "patch", 0, "end_time"], "+099999-01-01T00:00:00Z")] });
    expect(await stored()).toBe(0);
    expect((await request(app).get(`/api/v1/runs/${ROOT}`)).status).toBe(404);
  });

  it("POST /runs/multipart: a bad time in a post or patch part refuses every part, feedback included", async () => {
    const { body, type } = multipart([
      { name: `post.${ROOT}`, data: run({ start_time: "2026-01-15T09:00:00Z" }) },
      { name: `post.${CHILD}`, data: { name: "search", run_type: "tool", parent_run_id: ROOT, start_time: -1e20 } },
      { name: `patch.${ROOT}`, data: { end_time: "NaN" } },
      { name: `feedback.${FEEDBACK}`, data: { run_id: ROOT, key: "correct", score: 1 } },
    ]);
    const res = await request(app).post("/api/v1/runs/multipart").set("content-type", type).send(body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [timeIssue(["body", "post", 1, "start_time"], -1e20), timeIssue(["body", "patch", 0, "end_time"], "NaN")] });
    expect(await stored()).toBe(0);
    expect(mock.feedback()).toEqual([]);
  });

  it("PATCH /runs/{id}: a bad end_time changes nothing, and for a run not posted yet nothing waits", async () => {
    await request(app).post("/api/v1/runs").send(run()).expect(202);
    const res = await request(app).patch(`/api/v1/runs/${ROOT}`).send({ end_time: 1e308, outputs: { late: true } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [timeIssue(["body", "end_time"], 1e308)] });
    expect(mock.traces()).toMatchObject([{ id: ROOT, end_time: null, outputs: null }]);
    const early = await request(app).patch(`/api/v1/runs/${CHILD}`).send({ end_time: "Jan 15 2026", outputs: { late: true } });
    expect(early.body).toEqual({ detail: [timeIssue(["body", "end_time"], "Jan 15 2026")] });
    await request(app).post("/api/v1/runs").send({ id: CHILD, name: "search", run_type: "tool" }).expect(202);
    expect(mock.traces({ name: "search" })).toMatchObject([{ end_time: null, outputs: null }]);
  });

  it("the clients' forms and both ends of the range are read", async () => {
    const times: [unknown, string][] = [
      ["2026-01-15T09:00:00.123456", "2026-01-15T09:00:00.123456+00:00"], // Python, naive
      ["2026-01-15T09:00:00.123456+00:00", "2026-01-15T09:00:00.123456+00:00"], // Python, aware
      ["2026-01-15T10:00:00+01:00", "2026-01-15T09:00:00.000000+00:00"],
      ["2026-01-15 09:00:00Z", "2026-01-15T09:00:00.000000+00:00"],
      [Date.parse("2026-01-15T09:00:00.250Z"), "2026-01-15T09:00:00.250000+00:00"], // JS, epoch ms
      ["2024-02-29", "2024-02-29T00:00:00.000000+00:00"],
      [-62_135_596_800_000, "0001-01-01T00:00:00.000000+00:00"],
      ["9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59.999999+00:00"],
    ];
    for (const [i, [sent]] of times.entries()) {
      await request(app).post("/api/v1/runs").send({ id: `0198c0de-2700-7000-8000-0000000001${String(i).padStart(2, "0")}`, name: `t${i}`, run_type: "chain", start_time: sent }).expect(202);
    }
    for (const [i, [, answered]] of times.entries()) {
      const read = await request(app).get(`/api/v1/runs/0198c0de-2700-7000-8000-0000000001${String(i).padStart(2, "0")}`);
      expect(read.body.start_time).toBe(answered);
      expect(read.body.dotted_order).toMatch(/^\d{8}T\d{12}Z/);
    }
  });
});
