import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { createApp, mockOf } from "../../src/index.js";
import { appForFile } from "../support/app-presets.js";
import { expectFits } from "../support/schema-assert.js";
import { fastApi422, missing as required } from "../support/errors.js";

const RUN_A = "0198c0de-0000-7000-8000-00000000000a";
const RUN_B = "0198c0de-0000-7000-8000-00000000000b";
const TOKEN = "tracing/feedback-token.json#/$defs/FeedbackIngestToken";
const FEEDBACK = "tracing/feedback.json#/$defs/Feedback";

describe("LangSmith routes under /api/v1", () => {
  const app = appForFile("tracing", { seed: 5 });

  describe("POST /feedback/tokens", () => {
    it("an object body gives one token that lives 3 hours by default", async () => {
      const res = await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_A, feedback_key: "user_liked" });
      expect(res.status).toBe(200);
      expectFits(TOKEN, res.body);
      expect(res.body).toEqual({
        id: expect.any(String),
        url: `http://mock.test/api/v1/feedback/tokens/${res.body.id}`,
        expires_at: "2026-01-15T12:00:00.000000+00:00",
        feedback_key: "user_liked",
      });
    });

    it("an array body gives an array of tokens in the same order", async () => {
      const res = await request(app)
        .post("/api/v1/feedback/tokens")
        .send([
          { run_id: RUN_A, feedback_key: "user_liked", expires_in: null, expires_at: null, feedback_config: null },
          { run_id: RUN_A, feedback_key: "user_disliked", expires_in: { days: 0, hours: 1, minutes: 30 } },
        ]);
      expect(res.status).toBe(200);
      expect(res.body.map((t: { feedback_key: string; expires_at: string }) => [t.feedback_key, t.expires_at])).toEqual([
        ["user_liked", "2026-01-15T12:00:00.000000+00:00"],
        ["user_disliked", "2026-01-15T10:30:00.000000+00:00"],
      ]);
    });

    it("expires_in counts days, hours and minutes; expires_at is taken as given", async () => {
      const inDays = await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_A, feedback_key: "k", expires_in: { days: 2, minutes: 5 } });
      expect(inDays.body.expires_at).toBe("2026-01-17T09:05:00.000000+00:00");
      const at = await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_A, feedback_key: "k", expires_at: "2026-01-15T09:10:00Z" });
      expect(at.body.expires_at).toBe("2026-01-15T09:10:00.000000+00:00");
      mockOf(app).clock.advance("10m");
      const expired = await request(app).post(`/api/v1/feedback/tokens/${at.body.id}`).send({ score: 1 });
      expect(expired.status).toBe(404);
      expect(expired.body).toEqual({ detail: "Feedback token expired" });
      await request(app).post(`/api/v1/feedback/tokens/${inDays.body.id}`).send({ score: 1 }).expect(200);
    });

    it("the token records feedback against the run and key it was made for", async () => {
      const token = (await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_A.toUpperCase(), feedback_key: "correctness" })).body;
      await request(app).post(`/api/v1/feedback/tokens/${token.id}`).send({ score: 0.5 }).expect(200);
      expect(mockOf(app).feedback()).toMatchObject([{ key: "correctness", run_id: RUN_A, token_id: token.id, thread_id: null, scenario: null, score: 0.5 }]);
    });

    it("missing fields are 422 as FastAPI lists them; nothing is created", async () => {
      const res = await request(app).post("/api/v1/feedback/tokens").send({ feedback_key: "k", expires_in: { hours: "soon" } });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
        ["missing", ["body", "run_id"]],
        ["int_parsing", ["body", "expires_in", "hours"]],
      ]);
      const batch = await request(app).post("/api/v1/feedback/tokens").send([{ run_id: RUN_A, feedback_key: "ok" }, { run_id: "nope", feedback_key: "k" }]);
      expect(batch.status).toBe(422);
      expect(batch.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["body", 1, "run_id"], input: "nope" });
      const list = await request(app).get("/api/v1/feedback/tokens").query({ run_id: RUN_A });
      expect(list.body).toEqual([]);
    });
  });

  describe("GET /feedback/tokens", () => {
    it("lists a run's tokens in creation order, honouring offset and limit", async () => {
      for (const key of ["a", "b", "c"]) await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_A, feedback_key: key });
      await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_B, feedback_key: "other" });
      const all = await request(app).get("/api/v1/feedback/tokens").query({ run_id: RUN_A });
      expect(all.status).toBe(200);
      expect(all.body.map((t: { feedback_key: string }) => t.feedback_key)).toEqual(["a", "b", "c"]);
      for (const t of all.body) expectFits(TOKEN, t);
      const page = await request(app).get("/api/v1/feedback/tokens").query({ run_id: RUN_A, offset: 1, limit: 1 });
      expect(page.body.map((t: { feedback_key: string }) => t.feedback_key)).toEqual(["b"]);
    });

    it("run_id is required and must be a UUID", async () => {
      const missing = await request(app).get("/api/v1/feedback/tokens");
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual(fastApi422(required("query", "run_id")));
      const bad = await request(app).get("/api/v1/feedback/tokens").query({ run_id: "x" });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["query", "run_id"] });
    });
  });

  describe("POST /feedback, GET /feedback/{id}", () => {
    it("creates feedback as the langsmith client sends it and reads it back", async () => {
      const id = "0198c0de-1111-7000-8000-000000000001";
      const created = await request(app)
        .post("/api/v1/feedback")
        .send({ id, run_id: RUN_A, key: "correctness", score: 1, comment: "ok", feedback_source: { type: "api", metadata: { via: "sdk" } }, extend_trace_retention: true });
      expect(created.status).toBe(200);
      expectFits(FEEDBACK, created.body);
      expect(created.body).toMatchObject({ id, run_id: RUN_A, trace_id: RUN_A, is_root: true, key: "correctness", score: 1, extra: { error: false } });
      expect(created.body.feedback_source).toEqual({ type: "api", metadata: { via: "sdk" }, user_id: null, ls_user_id: null, user_name: null });
      const read = await request(app).get(`/api/v1/feedback/${id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      expect(mockOf(app).feedback()).toMatchObject([{ id, token_id: null, method: "POST", metadata: { via: "sdk" }, key: "correctness" }]);
    });

    it("a feedback on another trace's run is not a root", async () => {
      const res = await request(app).post("/api/v1/feedback").send({ run_id: RUN_A, trace_id: RUN_B, key: "k" });
      expect(res.body).toMatchObject({ run_id: RUN_A, trace_id: RUN_B, is_root: false });
    });

    it("an id that exists already is 409", async () => {
      const id = "0198c0de-1111-7000-8000-000000000002";
      await request(app).post("/api/v1/feedback").send({ id, run_id: RUN_A, key: "k" }).expect(200);
      const again = await request(app).post("/api/v1/feedback").send({ id, run_id: RUN_A, key: "k" });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ detail: `Feedback ${id} already exists` });
      expect(mockOf(app).feedback()).toHaveLength(1);
    });

    it("key is required and at most 180 characters", async () => {
      const res = await request(app).post("/api/v1/feedback").send({ run_id: RUN_A, key: "k".repeat(181) });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ type: "string_too_long", loc: ["body", "key"] });
      const missing = await request(app).post("/api/v1/feedback").send({ run_id: RUN_A });
      expect(missing.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "key"] });
    });

    it("an unknown feedback is 404, a malformed id 422", async () => {
      const unknown = await request(app).get("/api/v1/feedback/0198c0de-1111-7000-8000-0000000000ff");
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: "Feedback not found" });
      const bad = await request(app).get("/api/v1/feedback/42");
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "feedback_id"] });
    });
  });

  describe("PATCH and DELETE /feedback/{id}", () => {
    const id = "0198c0de-1111-7000-8000-000000000003";
    beforeEach(async () => {
      await request(app).post("/api/v1/feedback").send({ id, run_id: RUN_A, key: "k", score: 1, comment: "first" }).expect(200);
    });

    it("PATCH replaces the fields sent (null clears), keeps the others and moves modified_at", async () => {
      mockOf(app).clock.advance("1m");
      const res = await request(app).patch(`/api/v1/feedback/${id}`).send({ score: 0, comment: null, unknown: "ignored" });
      expect(res.status).toBe(200);
      expectFits(FEEDBACK, res.body);
      expect(res.body).toMatchObject({ id, key: "k", score: 0, comment: null, created_at: "2026-01-15T09:00:00.000000+00:00", modified_at: "2026-01-15T09:01:00.000000+00:00" });
      expect(mockOf(app).feedback()).toMatchObject([{ id, score: 0, comment: null }]);
    });

    it("PATCH validates like the rest: 422 for a bad field, 404 for an unknown id", async () => {
      expect((await request(app).patch(`/api/v1/feedback/${id}`).send({ score: "high" })).status).toBe(422);
      const unknown = await request(app).patch("/api/v1/feedback/0198c0de-1111-7000-8000-0000000000ff").send({ score: 1 });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: "Feedback not found" });
    });

    it("DELETE answers {} and forgets the feedback", async () => {
      const res = await request(app).delete(`/api/v1/feedback/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect((await request(app).get(`/api/v1/feedback/${id}`)).status).toBe(404);
      expect(mockOf(app).feedback()).toEqual([]);
      expect((await request(app).delete(`/api/v1/feedback/${id}`)).status).toBe(404);
    });
  });

  describe("GET /feedback", () => {
    async function seed() {
      const tokens = (
        await request(app)
          .post("/api/v1/feedback/tokens")
          .send([
            { run_id: RUN_A, feedback_key: "user_liked" },
            { run_id: RUN_B, feedback_key: "user_disliked" },
          ])
      ).body as { id: string }[];
      await request(app).post(`/api/v1/feedback/tokens/${tokens[0]?.id}`).send({ score: 1, comment: "nice" });
      mockOf(app).clock.advance("1m");
      await request(app).post(`/api/v1/feedback/tokens/${tokens[1]?.id}`).send({ score: 1 });
      mockOf(app).clock.advance("1m");
      await request(app).post("/api/v1/feedback").send({ run_id: RUN_A, key: "correctness", feedback_source: { type: "model" } });
    }
    const keys = (body: { key: string }[]) => body.map((f) => f.key);

    it("lists newest first, every record in the LangSmith shape", async () => {
      await seed();
      const res = await request(app).get("/api/v1/feedback");
      expect(res.status).toBe(200);
      expect(keys(res.body)).toEqual(["correctness", "user_disliked", "user_liked"]);
      for (const f of res.body) expectFits(FEEDBACK, f);
    });

    it("filters by run, key and source, each repeatable", async () => {
      await seed();
      expect(keys((await request(app).get(`/api/v1/feedback?run=${RUN_A}`)).body)).toEqual(["correctness", "user_liked"]);
      expect(keys((await request(app).get(`/api/v1/feedback?run=${RUN_A}&run=${RUN_B}`)).body)).toEqual(["correctness", "user_disliked", "user_liked"]);
      expect(keys((await request(app).get("/api/v1/feedback?key=user_liked&key=user_disliked")).body)).toEqual(["user_disliked", "user_liked"]);
      expect(keys((await request(app).get("/api/v1/feedback?source=model")).body)).toEqual(["correctness"]);
      expect(keys((await request(app).get("/api/v1/feedback?has_comment=true")).body)).toEqual(["user_liked"]);
      expect(keys((await request(app).get("/api/v1/feedback?has_score=false")).body)).toEqual(["correctness"]);
      expect(keys((await request(app).get("/api/v1/feedback?min_created_at=2026-01-15T09:01:00Z")).body)).toEqual(["correctness", "user_disliked"]);
    });

    it("pages with limit and offset", async () => {
      await seed();
      expect(keys((await request(app).get("/api/v1/feedback?limit=2")).body)).toEqual(["correctness", "user_disliked"]);
      expect(keys((await request(app).get("/api/v1/feedback?limit=2&offset=2")).body)).toEqual(["user_liked"]);
    });

    it("limit is 1–100, source a SourceType, run a UUID", async () => {
      const tooMany = await request(app).get("/api/v1/feedback?limit=101");
      expect(tooMany.status).toBe(422);
      expect(tooMany.body).toEqual({ detail: [{ type: "less_than_equal", loc: ["query", "limit"], msg: "Input should be less than or equal to 100", input: 101, ctx: { le: 100 } }] });
      const source = await request(app).get("/api/v1/feedback?source=human");
      expect(source.body.detail[0]).toMatchObject({ type: "enum", loc: ["query", "source", 0] });
      const run = await request(app).get("/api/v1/feedback?run=abc");
      expect(run.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["query", "run", 0] });
    });
  });

  it("GET /info advertises multipart run ingestion with gzip bodies up to the body limit", async () => {
    const res = await request(app).get("/api/v1/info");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+$/), batch_ingest_config: { use_multipart_endpoint: true, size_limit_bytes: 1024 * 1024 }, instance_flags: { gzip_body_enabled: true } });
  });

  describe("with an API key configured", () => {
    const keyed = createApp({ seed: 5, apiKey: "sekret" });

    it("the LangSmith routes answer 401 Invalid token without it, or with a wrong one", async () => {
      for (const [method, url] of [
        ["post", "/api/v1/feedback/tokens"],
        ["get", `/api/v1/feedback/tokens?run_id=${RUN_A}`],
        ["get", "/api/v1/feedback"],
        ["post", "/api/v1/feedback"],
        ["get", `/api/v1/feedback/${RUN_A}`],
      ] as const) {
        const missing = await request(keyed)[method](url).send(method === "post" ? {} : undefined);
        expect(missing.status, `${method} ${url}`).toBe(401);
        expect(missing.body).toEqual({ detail: "Invalid token" });
        const wrong = await request(keyed)[method](url).set("X-Api-Key", "wrong");
        expect(wrong.status, `${method} ${url}`).toBe(401);
      }
    });

    it("they work with it; /info and the token URLs never need it", async () => {
      const token = await request(keyed).post("/api/v1/feedback/tokens").set("X-Api-Key", "sekret").send({ run_id: RUN_A, feedback_key: "k" });
      expect(token.status).toBe(200);
      await request(keyed).get(`/api/v1/feedback/tokens/${token.body.id}`).expect(200);
      await request(keyed).get("/api/v1/info").expect(200);
      const list = await request(keyed).get("/api/v1/feedback").set("X-Api-Key", "sekret");
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(1);
    });
  });

  it("a method the route does not have is 405 with Allow", async () => {
    const res = await request(app).put("/api/v1/feedback/tokens/3b0e7c1a-9f0b-4c8e-8d5a-2a6e1f0c9b7d");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
    expect(res.headers.allow).toContain("POST");
    expect(res.headers.allow).toContain("GET");
  });
});
