import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import type { Express } from "express";
import { request as httpRequest } from "node:http";
import { createApp, mockOf, startMockServer } from "../../src/index.js";
import { appForFile } from "../support/app-presets.js";
import { issueFeedbackToken, type FeedbackToken } from "../../src/tracing/feedback-tokens.js";
import { contextOf } from "../../src/mock-control.js";

const RUN_A = "0198c0de-3333-7000-8000-00000000000a";
const RUN_B = "0198c0de-3333-7000-8000-00000000000b";
const THREAD_A = "5a0d1c8e-1b2a-4e3f-9d8c-7b6a5f4e3d2c";
const FIELDS = ["id", "token_id", "key", "run_id", "thread_id", "assistant_id", "scenario", "score", "value", "comment", "correction", "metadata", "method", "received_at"];

function issue(app: Express, run_id: string, feedback_key: string, thread_id: string | null = null): FeedbackToken {
  return issueFeedbackToken(contextOf(mockOf(app)), contextOf(mockOf(app)).tracingUrl(), { run_id, feedback_key, thread_id, assistant_id: thread_id && "agent", scenario: thread_id && "greeting" });
}
const submit = (app: Express, token: FeedbackToken, body: object) => request(app).post(new URL(token.url).pathname).send(body).expect(200);

describe("GET /_mock/feedback and mock.feedback()", () => {
  const app = appForFile({ seed: 3 });
  let liked: FeedbackToken;
  let disliked: FeedbackToken;
  let other: FeedbackToken;
  beforeEach(async () => {
    liked = issue(app, RUN_A, "user_liked", THREAD_A);
    disliked = issue(app, RUN_A, "user_disliked", THREAD_A);
    other = issue(app, RUN_B, "user_liked");
    await submit(app, liked, { score: 1, metadata: { page: "chat" } });
    mockOf(app).clock.advance("2s");
    await submit(app, other, { score: 0, comment: "meh" });
    await request(app).get(new URL(disliked.url).pathname).query({ score: "1", correction: "Rainy" }).expect(200);
    await request(app).post("/api/v1/feedback").send({ run_id: RUN_A, key: "correctness", score: 1, feedback_source: { type: "api", metadata: { by: "sdk" } } }).expect(200);
  });

  it("lists every capture in arrival order as {items, count}, each item exactly the DESIGN §4 fields", async () => {
    const res = await request(app).get("/_mock/feedback");
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(res.body.items.map((f: { key: string }) => f.key)).toEqual(["user_liked", "user_liked", "user_disliked", "correctness"]);
    for (const item of res.body.items) expect(Object.keys(item)).toEqual(FIELDS);
    expect(res.body.items[0]).toEqual({
      id: expect.any(String),
      token_id: liked.id,
      key: "user_liked",
      run_id: RUN_A,
      thread_id: THREAD_A,
      assistant_id: "agent",
      scenario: "greeting",
      score: 1,
      value: null,
      comment: null,
      correction: null,
      metadata: { page: "chat" },
      method: "POST",
      received_at: "2026-01-15T09:00:00.000000+00:00",
    });
    expect(res.body.items[2]).toMatchObject({ method: "GET", correction: "Rainy", metadata: null, received_at: "2026-01-15T09:00:02.000000+00:00" });
    // Created with an API key: no token and POST; the run's thread is known from its tokens.
    expect(res.body.items[3]).toMatchObject({ token_id: null, method: "POST", thread_id: THREAD_A, scenario: "greeting", metadata: { by: "sdk" } });
  });

  it("filters by key, run_id, thread_id and token_id, alone or together", async () => {
    const keys = async (query: string) => (await request(app).get(`/_mock/feedback?${query}`)).body.items.map((f: { key: string; run_id: string }) => `${f.key}@${f.run_id.slice(-1)}`);
    expect(await keys("key=user_liked")).toEqual(["user_liked@a", "user_liked@b"]);
    expect(await keys(`run_id=${RUN_B}`)).toEqual(["user_liked@b"]);
    expect(await keys(`thread_id=${THREAD_A}`)).toEqual(["user_liked@a", "user_disliked@a", "correctness@a"]);
    expect(await keys(`token_id=${disliked.id}`)).toEqual(["user_disliked@a"]);
    expect(await keys(`key=user_liked&run_id=${RUN_A.toUpperCase()}`)).toEqual(["user_liked@a"]);
    expect(await keys("key=nothing")).toEqual([]);
  });

  it("the library API returns the same items for the same filter", async () => {
    for (const filter of [{}, { key: "user_liked" }, { run_id: RUN_A }, { thread_id: THREAD_A }, { token_id: other.id }]) {
      const http = (await request(app).get("/_mock/feedback").query(filter)).body.items;
      expect(mockOf(app).feedback(filter)).toEqual(http);
    }
  });

  it("mock.feedback() hands out copies: changing an item, nested values included, changes nothing recorded", async () => {
    const [first] = mockOf(app).feedback();
    (first!.metadata as { page: string }).page = "changed";
    first!.score = 99;
    expect(mockOf(app).feedback()[0]).toMatchObject({ score: 1, metadata: { page: "chat" } });
    const record = await request(app).get(`/api/v1/feedback/${first!.id}`);
    expect(record.body.feedback_source.metadata).toEqual({ page: "chat" });
  });

  it("DELETE /_mock/feedback forgets the captures but not the tokens", async () => {
    const res = await request(app).delete("/_mock/feedback");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, deleted: 4 });
    expect((await request(app).get("/_mock/feedback")).body).toEqual({ items: [], count: 0 });
    await submit(app, liked, { score: 1 });
    expect(mockOf(app).feedback()).toHaveLength(1);
  });
});

describe("the request journal (GET /_mock/requests)", () => {
  it("records service requests oldest first, with their body, status and timing, and never admin routes", async () => {
    const app = createApp({ seed: 3 });
    const token = issue(app, RUN_A, "user_liked");
    await request(app).post(new URL(token.url).pathname).send({ score: 1 });
    await request(app).get("/api/v1/feedback/tokens/not-a-uuid");
    await request(app).get("/_mock/feedback");
    await request(app).post("/_mock/clock").send({ advance: "1s" });
    const res = await request(app).get("/_mock/requests");
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.items.map((r: { method: string; path: string; status: number }) => [r.method, r.path, r.status])).toEqual([
      ["POST", `/api/v1/feedback/tokens/${token.id}`, 200],
      ["GET", "/api/v1/feedback/tokens/not-a-uuid", 422],
    ]);
    expect(res.body.items[0]).toMatchObject({ id: 1, body: { score: 1 }, query: {}, received_at: "2026-01-15T09:00:00.000000+00:00", duration_ms: expect.any(Number) });
    expect(res.body.items[0].headers["content-type"]).toMatch(/application\/json/);
  });

  it("keeps each body as it was sent, not as validation trimmed it or filled its defaults", async () => {
    const app = createApp({ seed: 3 });
    const sent = { run_id: RUN_A, feedback_key: "k", expires_in: { hours: 1 }, feedback_config: { type: "continuous", bogus: true } };
    await request(app).post("/api/v1/feedback/tokens").send(sent).expect(200);
    expect(mockOf(app).requests()[0]?.body).toEqual(sent);
  });

  it("hands out copies: changing a listed entry does not change the journal", async () => {
    const app = createApp({ seed: 3 });
    await request(app).post("/api/v1/feedback").send({ key: "k", run_id: RUN_A }).expect(200);
    (mockOf(app).requests()[0]?.body as { key: string }).key = "changed";
    expect(mockOf(app).requests()[0]?.body).toEqual({ key: "k", run_id: RUN_A });
  });

  it("filters by method, path prefix and limit (the newest n)", async () => {
    const app = createApp({ seed: 3 });
    await request(app).get("/api/v1/info");
    await request(app).get("/api/v1/feedback");
    await request(app).post("/api/v1/feedback").send({ key: "k", run_id: RUN_A });
    const paths = async (query: string) => (await request(app).get(`/_mock/requests?${query}`)).body.items.map((r: { method: string; path: string }) => `${r.method} ${r.path}`);
    expect(await paths("path=/api/v1/feedback")).toEqual(["GET /api/v1/feedback", "POST /api/v1/feedback"]);
    expect(await paths("method=get")).toEqual(["GET /api/v1/info", "GET /api/v1/feedback"]);
    expect(await paths("limit=1")).toEqual(["POST /api/v1/feedback"]);
    expect((await request(app).get("/_mock/requests?limit=-1")).status).toBe(400);
    expect(mockOf(app).requests({ path: "/api/v1/info" })).toHaveLength(1);
  });

  it("is bounded: past maxEntries the oldest entries go", async () => {
    const app = createApp({ seed: 3, journal: { maxEntries: 3 } });
    for (let i = 0; i < 5; i++) await request(app).get(`/api/v1/info?n=${i}`);
    const items = (await request(app).get("/_mock/requests")).body.items as { id: number; query: { n: string } }[];
    expect(items.map((r) => [r.id, r.query.n])).toEqual([
      [3, "2"],
      [4, "3"],
      [5, "4"],
    ]);
    // Round the ring once more: still the newest three, oldest first.
    for (let i = 5; i < 7; i++) await request(app).get(`/api/v1/info?n=${i}`);
    const later = (await request(app).get("/_mock/requests")).body.items as { id: number; query: { n: string } }[];
    expect(later.map((r) => r.id)).toEqual([5, 6, 7]);
  });

  it("caps bodies: one larger than maxBodyBytes is kept as a truncated preview with its size", async () => {
    const app = createApp({ seed: 3, journal: { maxBodyBytes: 40 } });
    const token = issue(app, RUN_A, "user_liked");
    const comment = "x".repeat(200);
    await request(app).post(new URL(token.url).pathname).send({ score: 1, comment }).expect(200);
    await request(app).post(new URL(token.url).pathname).send({ score: 1 }).expect(200);
    const [big, small] = mockOf(app).requests();
    const text = JSON.stringify({ score: 1, comment });
    expect(big?.body).toEqual({ $truncated: true, size: text.length, preview: text.slice(0, 40) });
    expect(small?.body).toEqual({ score: 1 });
    // The feedback itself is whole.
    expect(mockOf(app).feedback()[0]?.comment).toBe(comment);
  });

  it("caps a body sent without Content-Length (chunked) the same way", async () => {
    const mock = await startMockServer({ seed: 3, journal: { maxBodyBytes: 40 } });
    try {
      const token = issueFeedbackToken(contextOf(mock.control), contextOf(mock.control).tracingUrl(), { run_id: RUN_A, feedback_key: "user_liked" });
      const text = JSON.stringify({ score: 1, comment: "y".repeat(200) });
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = httpRequest(token.url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        });
        req.on("error", reject);
        // Two writes and no Content-Length: node sends the body chunked.
        req.write(text.slice(0, 10));
        req.end(text.slice(10));
      });
      expect(status).toBe(200);
      const [entry] = mock.requests();
      expect(entry?.headers["transfer-encoding"]).toBe("chunked");
      expect(entry?.body).toEqual({ $truncated: true, size: text.length, preview: text.slice(0, 40) });
    } finally {
      await mock.close();
    }
  });

  it("DELETE /_mock/requests empties it", async () => {
    const app = createApp({ seed: 3 });
    await request(app).get("/api/v1/info");
    await request(app).delete("/_mock/requests").expect(200);
    expect((await request(app).get("/_mock/requests")).body).toEqual({ items: [], count: 0 });
  });
});

describe("POST /_mock/reset by scope", () => {
  let app: Express;
  let token: FeedbackToken;
  beforeEach(async () => {
    app = createApp({ seed: 3 });
    token = issue(app, RUN_A, "user_liked");
    await submit(app, token, { score: 1 });
    mockOf(app).clock.advance("1h");
  });
  const state = async () => ({
    feedback: mockOf(app).feedback().length,
    journal: mockOf(app).requests().length,
    tokenKnown: (await request(app).get(`/api/v1/feedback/tokens?run_id=${RUN_A}`)).body.length === 1,
    clock: (await request(app).get("/_mock/clock")).body.now,
  });

  it("feedback: forgets captured feedback only", async () => {
    expect(await request(app).post("/_mock/reset").send({ scope: "feedback" })).toMatchObject({ status: 200, body: { ok: true, scope: "feedback" } });
    expect(await state()).toMatchObject({ feedback: 0, tokenKnown: true, clock: "2026-01-15T10:00:00.000000+00:00" });
    expect(mockOf(app).requests().length).toBeGreaterThan(0);
  });

  it("store: forgets tokens (their URLs become unknown) and keeps feedback", async () => {
    await request(app).post("/_mock/reset").send({ scope: "store" }).expect(200);
    expect(await state()).toMatchObject({ feedback: 1, tokenKnown: false });
    const res = await request(app).post(new URL(token.url).pathname).send({ score: 1 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Feedback token not found" });
  });

  it("journal: empties the journal only", async () => {
    await request(app).post("/_mock/reset").send({ scope: "journal" }).expect(200);
    expect(mockOf(app).requests()).toEqual([]);
    expect(mockOf(app).feedback()).toHaveLength(1);
  });

  it("scenarios: leaves feedback, tokens and journal alone", async () => {
    await request(app).post("/_mock/reset").send({ scope: "scenarios" }).expect(200);
    expect(await state()).toMatchObject({ feedback: 1, tokenKnown: true });
  });

  it("all (the default): store, feedback, journal and clock back to the start", async () => {
    await request(app).post("/_mock/reset").expect(200);
    expect(mockOf(app).feedback()).toEqual([]);
    expect(mockOf(app).requests()).toEqual([]);
    const after = await state();
    expect(after).toMatchObject({ tokenKnown: false, clock: "2026-01-15T09:00:00.000000+00:00" });
  });

  it("each scope puts back exactly its part: feedback, tokens, journal, scenarios, clock, random", async () => {
    const observe = async (scope: string) => {
      const fresh = createApp({ seed: 3, fixtures: false, scenarios: [{ name: "at-start", events: [] }] });
      const first = (await request(fresh).post("/api/v1/feedback/tokens").send({ run_id: RUN_A, feedback_key: "k" })).body.id as string;
      await request(fresh).post(`/api/v1/feedback/tokens/${first}`).send({ score: 1 }).expect(200);
      await mockOf(fresh).loadScenarios({ name: "later", events: [] });
      mockOf(fresh).clock.advance("1h");
      await request(fresh).post("/_mock/reset").send({ scope }).expect(200);
      const journal = mockOf(fresh).requests().length;
      const scenarios = (await request(fresh).get("/_mock/scenarios")).body.items.map((s: { name: string }) => s.name);
      const clock = (await request(fresh).get("/_mock/clock")).body.now.slice(11, 16);
      const feedback = mockOf(fresh).feedback().length;
      const tokens = (await request(fresh).get(`/api/v1/feedback/tokens?run_id=${RUN_A}`)).body.length;
      const next = (await request(fresh).post("/api/v1/feedback/tokens").send({ run_id: RUN_A, feedback_key: "k" })).body.id;
      return { feedback, tokens, journal, scenarios, clock, sameIdsAgain: next === first };
    };
    const kept = { feedback: 1, tokens: 1, journal: 2, scenarios: ["at-start", "later"], clock: "10:00", sameIdsAgain: false };
    expect(await observe("feedback")).toEqual({ ...kept, feedback: 0 });
    expect(await observe("store")).toEqual({ ...kept, tokens: 0 });
    expect(await observe("journal")).toEqual({ ...kept, journal: 0 });
    expect(await observe("scenarios")).toEqual({ ...kept, scenarios: ["at-start"] });
    expect(await observe("all")).toEqual({ feedback: 0, tokens: 0, journal: 0, scenarios: ["at-start"], clock: "09:00", sameIdsAgain: true });
  });

  it("the library's reset(scope) does the same", async () => {
    mockOf(app).reset("feedback");
    expect(mockOf(app).feedback()).toEqual([]);
    expect((await request(app).get(`/api/v1/feedback/tokens?run_id=${RUN_A}`)).body).toHaveLength(1);
  });

  it("an unknown scope is 400 naming the allowed ones", async () => {
    const res = await request(app).post("/_mock/reset").send({ scope: "everything" });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('scope must be one of "all", "store", "feedback", "journal", "scenarios", "faults", "traces"; got "everything"');
  });
});

describe("admin basics", () => {
  it("GET /_mock/health is {ok: true}", async () => {
    const res = await request(createApp({ seed: 3 })).get("/_mock/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  it("--admin-token protects /_mock but not the services or the token URLs", async () => {
    const app = createApp({ seed: 3, adminToken: "adm1n" });
    const denied = await request(app).get("/_mock/feedback");
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({ detail: "Admin token required: send Authorization: Bearer <admin token>" });
    expect((await request(app).get("/_mock/feedback").set("Authorization", "Bearer wrong")).status).toBe(401);
    expect((await request(app).delete("/_mock/feedback")).status).toBe(401);
    const token = issue(app, RUN_A, "user_liked");
    await submit(app, token, { score: 1 });
    const allowed = await request(app).get("/_mock/feedback").set("Authorization", "Bearer adm1n");
    expect(allowed.status).toBe(200);
    expect(allowed.body.count).toBe(1);
  });

  it("never needs the API key", async () => {
    const app = createApp({ seed: 3, apiKey: "sekret" });
    expect((await request(app).get("/_mock/feedback")).status).toBe(200);
  });
});
