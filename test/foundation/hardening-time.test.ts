import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp, mockOf } from "../../src/index.js";
import { MAX_INSTANT } from "../../src/core/clock.js";

/**
 * Issue 28, defects 4–6: per-request work that grew with stored data, and time sums past the last
 * instant the clock can hold.
 */
const RUN_ID = "0198c0de-0000-7000-8000-000000000001";
const LAST = "9999-12-31T23:59:59.999000+00:00";

describe("store search is bounded by the request", () => {
  it("a 4 KB query against a 900 KB item answers at once, and finds items by their words", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    const words = Array.from({ length: 130_000 }, (_, i) => `w${i}`).join(" ");
    await request(app).put("/store/items").send({ namespace: ["big"], key: "k", value: { text: words } }).expect(204);
    await request(app).put("/store/items").send({ namespace: ["small"], key: "cats", value: { topic: "cats and dogs" } }).expect(204);
    const query = Array.from({ length: 900 }, (_, i) => `q${i}`).join(" ");
    expect(Buffer.byteLength(query)).toBeGreaterThan(4000);
    expect(JSON.stringify(words).length).toBeGreaterThan(900_000);
    const started = performance.now();
    const miss = await request(app).post("/store/items/search").send({ query }).expect(200);
    // It took 25 s before (every item serialised again for every query word).
    expect(performance.now() - started).toBeLessThan(5000);
    expect(miss.body).toEqual({ items: [] });
    const hit = await request(app).post("/store/items/search").send({ query: "w129999 dogs" }).expect(200);
    expect(hit.body.items.map((i: { key: string }) => i.key).sort()).toEqual(["cats", "k"]);
  });

  it("only the first 64 distinct words of a query count", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    await request(app).put("/store/items").send({ namespace: ["n"], key: "cats", value: { topic: "cats" } }).expect(204);
    const filler = Array.from({ length: 64 }, (_, i) => `x${i}`).join(" ");
    expect((await request(app).post("/store/items/search").send({ query: `${filler} x0 x1 cats` }).expect(200)).body).toEqual({ items: [] });
    expect((await request(app).post("/store/items/search").send({ query: `${filler.split(" ").slice(1).join(" ")} cats` }).expect(200)).body.items).toHaveLength(1);
  });
});

describe("feedback token expiry within the clock's range", () => {
  const issue = (app: ReturnType<typeof createApp>, body: unknown) => request(app).post("/api/v1/feedback/tokens").send(body as object);
  const tokens = async (app: ReturnType<typeof createApp>) => (await request(app).get("/api/v1/feedback/tokens").query({ run_id: RUN_ID }).expect(200)).body;
  const between = "the expiry must fall between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z";

  it("a huge or hugely negative expires_in is FastAPI's 422 at the field, and no token is stored", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    for (const expires_in of [{ days: 1e12 }, { days: -1e12 }, { minutes: Number.MAX_SAFE_INTEGER }]) {
      const res = await issue(app, { run_id: RUN_ID, feedback_key: "k", expires_in }).expect(422);
      expect(res.body).toEqual({ detail: [{ type: "value_error", loc: ["body", "expires_in"], msg: `Value error, ${between}`, input: { days: 0, hours: 0, minutes: 0, ...expires_in }, ctx: { error: between } }] });
    }
    // A batch with one such entry stores none of them.
    const batch = await issue(app, [{ run_id: RUN_ID, feedback_key: "a" }, { run_id: RUN_ID, feedback_key: "b", expires_in: { days: 1e12 } }]).expect(422);
    expect(batch.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([["body", 1, "expires_in"]]);
    expect(await tokens(app)).toEqual([]);
    // A small negative lifetime is a token that has expired already.
    const expired = await issue(app, { run_id: RUN_ID, feedback_key: "k", expires_in: { minutes: -5 } }).expect(200);
    expect(expired.body.expires_at).toBe("2026-01-15T08:55:00.000000+00:00");
    expect(await tokens(app)).toHaveLength(1);
  });

  it("at the clock's last instant the default lifetime ends there, an explicit one past it is refused", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    await request(app).post("/_mock/clock").send({ set: new Date(MAX_INSTANT).toISOString() }).expect(200);
    const made = await issue(app, { run_id: RUN_ID, feedback_key: "k" }).expect(200);
    expect(made.body.expires_at).toBe(LAST);
    await issue(app, { run_id: RUN_ID, feedback_key: "k", expires_in: { minutes: 1 } }).expect(422);
    await request(app).put("/store/items").send({ namespace: ["n"], key: "k", value: {}, ttl: 1 }).expect(422, {
      detail: "ttl 1 minutes expires the item past the last instant the clock can hold; use null for an item that never expires",
    });
    await request(app).put("/store/items").send({ namespace: ["n"], key: "k", value: {} }).expect(204);
    expect(await tokens(app)).toHaveLength(1);
  });
});

describe("time never passes the clock's last instant", () => {
  it("a real-time clock set to its last instant stays there; feedback, the journal and thread search stay readable", async () => {
    const app = createApp({ fixtures: false, journal: { maxEntries: 100 } });
    const early = await request(app).post("/api/v1/feedback").send({ run_id: RUN_ID, key: "early", score: 1 }).expect(200);
    await request(app).post("/_mock/clock").send({ set: new Date(MAX_INSTANT).toISOString() }).expect(200);
    // Wall time moves on while these requests run; the clock must not.
    const thread = await request(app).post("/threads").send({}).expect(200);
    expect(thread.body.created_at).toBe(LAST);
    const late = await request(app).post("/api/v1/feedback").send({ run_id: RUN_ID, key: "late", score: 1 }).expect(200);
    expect(late.body.created_at).toBe(LAST);
    expect((await request(app).get("/_mock/clock").expect(200)).body.now).toBe(LAST);
    expect(mockOf(app).clock.now().getTime()).toBe(MAX_INSTANT);
    expect((await request(app).get("/api/v1/feedback").query({ run: RUN_ID }).expect(200)).body).toHaveLength(2);
    expect((await request(app).post("/threads/search").send({}).expect(200)).body).toHaveLength(1);
    expect((await request(app).get("/_mock/requests").expect(200)).body.count).toBeGreaterThan(3);
    // Set back, everything recorded meanwhile still reads, the early feedback included.
    await request(app).post("/_mock/clock").send({ set: "2026-01-15T09:00:00Z" }).expect(200);
    const all = (await request(app).get("/_mock/feedback").expect(200)).body;
    expect(all.items.map((f: { id: string }) => f.id)).toContain(early.body.id);
    await request(app).get("/_mock/requests").expect(200);
    await request(app).post("/threads/search").send({}).expect(200);
  });

  it("latency and drip faults at the last instant answer at that instant", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    await request(app).post("/_mock/clock").send({ set: new Date(MAX_INSTANT).toISOString() }).expect(200);
    await request(app).post("/_mock/faults").send({ match: { route: "threads.create" }, fault: { latency: { ms: 60_000 } } }).expect(201);
    const slow = await request(app).post("/threads").send({}).timeout(10_000).expect(200);
    expect(slow.body.created_at).toBe(LAST);
    await request(app).delete("/_mock/faults").expect(200);
    await request(app).post("/_mock/faults").send({ match: { route: "threads.search" }, fault: { drip: { bytes: 8, every_ms: 1000 } } }).expect(201);
    const dripped = await request(app).post("/threads/search").send({}).timeout(10_000).expect(200);
    expect(dripped.body).toHaveLength(1);
  });
});
