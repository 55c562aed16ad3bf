import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, mockOf } from "../../src/index.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";
import { waitFor } from "./helpers.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

const slow: ScenarioInput = { name: "slow", match: { input: { slow: true } }, events: [{ event: "values", data: { done: true }, delay_ms: 10_000 }] };
const quick: ScenarioInput = { name: "quick", priority: -1, events: [{ event: "values", data: { quick: "{{input.tag}}" } }] };

let a: ReturnType<typeof createApp>;
beforeAll(() => {
  a = createApp({ seed: 9, fixtures: false, scenarios: [slow, quick], clock: { autoAdvance: false } });
});
beforeEach(() => mockOf(a).reset());

const runRecords = () => runsIn(contextOf(mockOf(a)));
const statusOf = (runId: string) => runRecords().get(runId)?.status;
async function newThread(): Promise<string> {
  return (await request(a).post("/threads").send({}).expect(200)).body.thread_id;
}
async function background(threadId: string, input: Record<string, unknown>) {
  return (await request(a).post(`/threads/${threadId}/runs`).send({ assistant_id: "agent", input }).expect(200)).body as { run_id: string };
}

describe("DELETE /threads/{id}/runs/{run_id}", () => {
  it("deletes a finished run (204, no body); stops one still going first; 404 for another thread's run", async () => {
    const tid = await newThread();
    const done = await background(tid, { tag: "x" });
    await waitFor(() => statusOf(done.run_id) === "success");
    const res = await request(a).delete(`/threads/${tid}/runs/${done.run_id}`).expect(204);
    expect(res.text).toBe("");
    expect(res.headers["content-type"]).toBeUndefined();
    await request(a).get(`/threads/${tid}/runs/${done.run_id}`).expect(404, { detail: "Not Found" });

    const going = await background(tid, { slow: true });
    await waitFor(() => statusOf(going.run_id) === "running");
    await request(a).delete(`/threads/${tid}/runs/${going.run_id}`).expect(204);
    expect(runRecords().get(going.run_id)).toBeUndefined();
    expect((await request(a).get(`/threads/${tid}`)).body.status).toBe("idle");

    const other = await newThread();
    const elsewhere = await background(other, { tag: "y" });
    await request(a).delete(`/threads/${tid}/runs/${elsewhere.run_id}`).expect(404, { detail: "Not Found" });
    await request(a).delete(`/threads/${tid}/runs/nope`).expect(422, { detail: "Invalid run ID: must be a UUID" });
  });
});

describe("POST /runs/cancel", () => {
  it("cancels the named runs of a thread, or every run with a status; 404 when none matches", async () => {
    const t1 = await newThread();
    const t2 = await newThread();
    const r1 = await background(t1, { slow: true });
    const r2 = await background(t2, { slow: true });
    await waitFor(() => statusOf(r1.run_id) === "running" && statusOf(r2.run_id) === "running");

    const res = await request(a).post("/runs/cancel").send({ thread_id: t1, run_ids: [r1.run_id] }).expect(204);
    expect(res.text).toBe("");
    await waitFor(() => statusOf(r1.run_id) === "interrupted");
    expect(statusOf(r2.run_id)).toBe("running");

    await request(a).post("/runs/cancel?action=rollback").send({ status: "all" }).expect(204);
    await waitFor(() => runRecords().get(r2.run_id) === undefined);

    await request(a).post("/runs/cancel").send({ status: "running" }).expect(404, {
      detail: "No matching runs to cancel. Please verify the thread ID and run IDs are correct and the runs haven't been deleted or expired.",
    });
    await request(a).post("/runs/cancel").send({ thread_id: t2, run_ids: [r1.run_id] }).expect(404);
    await request(a).post("/runs/cancel").send({ thread_id: t1 }).expect(422);
    await request(a).post("/runs/cancel?action=explode").send({ status: "all" }).expect(422);
  });
});

describe("POST /runs/batch", () => {
  it("creates stateless background runs in order and returns them; an empty batch is a 422", async () => {
    const res = await request(a)
      .post("/runs/batch")
      .send([
        { assistant_id: "agent", input: { tag: "one" } },
        { assistant_id: "agent", input: { tag: "two" }, metadata: { n: 2 } },
      ])
      .expect(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toMatchObject({ status: "pending", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca", metadata: {} });
    expect(res.body[1]).toMatchObject({ status: "pending", metadata: { n: 2 } });
    expect(res.body[0].run_id).not.toBe(res.body[1].run_id);
    await waitFor(() => res.body.every((r: { run_id: string }) => statusOf(r.run_id) === "success"));
    expect(runRecords().get(res.body[1].run_id)?.request).toEqual({ assistant_id: "agent", input: { tag: "two" }, metadata: { n: 2 } });
    await request(a).post("/runs/batch").send([]).expect(422, { detail: "[] must NOT have fewer than 1 items" });
    await request(a).post("/runs/batch").send([{ input: {} }]).expect(422, { detail: "'assistant_id' is a required property" });
  });
});
