import request from "supertest";
import { describe, expect, it } from "vitest";
import type { Express } from "express";
import { createApp, mockOf } from "../../src/index.js";
import { appForFile } from "../support/app-presets.js";
import { issueFeedbackToken, type FeedbackToken } from "../../src/tracing/feedback-tokens.js";
import { expectFits } from "../support/schema-assert.js";
import { fastApi422, missing } from "../support/errors.js";
import { contextOf } from "../../src/mock-control.js";

const RUN_ID = "0198c0de-0000-7000-8000-000000000001";
const THREAD_ID = "6f1c5b9e-2d4a-4c3b-9a8e-1f2d3c4b5a69";

function tokenFor(app: Express, feedbackKey: string, extra: { ttlMs?: number } = {}): FeedbackToken {
  return issueFeedbackToken(contextOf(mockOf(app)), contextOf(mockOf(app)).tracingUrl(), {
    run_id: RUN_ID,
    feedback_key: feedbackKey,
    thread_id: THREAD_ID,
    assistant_id: "agent",
    scenario: "weather-answer",
    ...extra,
  });
}

function path(token: FeedbackToken): string {
  return new URL(token.url).pathname;
}

describe("presigned token URLs", () => {
  const app = appForFile("tracing");

  it("hands out {tracing_url}/api/v1/feedback/tokens/<uuid>", () => {
    const token = tokenFor(app, "user_liked");
    expect(token.url).toMatch(/^http:\/\/mock\.test\/api\/v1\/feedback\/tokens\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(token.url.endsWith(token.id)).toBe(true);
  });

  it("POST records one feedback against the token's run and key and answers 200 with the LangSmith record", async () => {
    const token = tokenFor(app, "user_liked");
    const res = await request(app)
      .post(path(token))
      .send({ score: 1, value: "thumbs-up", comment: "Great answer", correction: { answer: "Sunny" }, metadata: { page: "/chat", ui: "web" } });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expectFits("tracing/feedback.json#/$defs/Feedback", res.body);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: "2026-01-15T09:00:00.000000+00:00",
      modified_at: "2026-01-15T09:00:00.000000+00:00",
      key: "user_liked",
      score: 1,
      value: "thumbs-up",
      comment: "Great answer",
      correction: { answer: "Sunny" },
      feedback_group_id: null,
      comparative_experiment_id: null,
      run_id: RUN_ID,
      session_id: null,
      trace_id: RUN_ID,
      start_time: null,
      is_root: true,
      feedback_source: { type: "api", metadata: { page: "/chat", ui: "web" }, user_id: null, ls_user_id: null, user_name: null },
      extra: null,
      feedback_thread_id: null,
    });
    expect(mockOf(app).feedback()).toEqual([
      {
        id: res.body.id,
        token_id: token.id,
        key: "user_liked",
        run_id: RUN_ID,
        thread_id: THREAD_ID,
        assistant_id: "agent",
        scenario: "weather-answer",
        score: 1,
        value: "thumbs-up",
        comment: "Great answer",
        correction: { answer: "Sunny" },
        metadata: { page: "/chat", ui: "web" },
        method: "POST",
        received_at: "2026-01-15T09:00:00.000000+00:00",
      },
    ]);
  });

  it("GET records one feedback from the query; metadata is not read from a GET", async () => {
    const token = tokenFor(app, "user_liked");
    const res = await request(app).get(`${path(token)}?score=1&value=0&comment=I%20didn%27t%20like%20it&correction=%7B%7D&metadata=x`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: "user_liked", score: 1, value: "0", comment: "I didn't like it", correction: "{}", run_id: RUN_ID });
    expect(res.body.feedback_source).toEqual({ type: "api", metadata: null, user_id: null, ls_user_id: null, user_name: null });
    expect(mockOf(app).feedback()).toMatchObject([{ method: "GET", score: 1, value: "0", correction: "{}", metadata: null, token_id: token.id }]);
  });

  it("a GET reads score as FastAPI reads number | integer | boolean, and value as the text it is", async () => {
    const token = tokenFor(app, "rating");
    const cases: [string, unknown][] = [
      ["1", 1],
      ["-1", -1],
      ["0.5", 0.5],
      ["true", true],
      ["false", false],
      ["yes", true],
    ];
    for (const [text, expected] of cases) {
      const res = await request(app).get(path(token)).query({ score: text, value: "1" });
      expect(res.status, text).toBe(200);
      expect(res.body.score, text).toBe(expected);
      expect(res.body.value).toBe("1");
    }
    expect(mockOf(app).feedback().map((f) => f.score)).toEqual(cases.map(([, v]) => v));
  });

  it("a GET with nothing but the token records a feedback with every field null", async () => {
    const token = tokenFor(app, "user_liked");
    const res = await request(app).get(path(token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: "user_liked", score: null, value: null, comment: null, correction: null });
  });

  it("a token is reusable until it expires: each use records one more feedback", async () => {
    const token = tokenFor(app, "user_liked");
    const first = await request(app).post(path(token)).send({ score: 0.8 });
    const second = await request(app).get(path(token)).query({ score: "0.9" });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.id).not.toBe(second.body.id);
    expect(mockOf(app).feedback({ token_id: token.id }).map((f) => [f.method, f.score])).toEqual([
      ["POST", 0.8],
      ["GET", 0.9],
    ]);
  });

  describe("both modelling styles of feedback keys", () => {
    it("one key per option: user_liked and user_disliked, each scored 1", async () => {
      const liked = tokenFor(app, "user_liked");
      const disliked = tokenFor(app, "user_disliked");
      await request(app).post(path(liked)).send({ score: 1 }).expect(200);
      await request(app).post(path(disliked)).send({ score: 1 }).expect(200);
      await request(app).post(path(liked)).send({ score: 1 }).expect(200);
      expect(mockOf(app).feedback({ key: "user_liked" }).map((f) => f.token_id)).toEqual([liked.id, liked.id]);
      expect(mockOf(app).feedback({ key: "user_disliked" }).map((f) => [f.token_id, f.score])).toEqual([[disliked.id, 1]]);
    });

    it("one key, options told apart by score: thumbs 1 and -1", async () => {
      const thumbs = tokenFor(app, "thumbs");
      await request(app).post(path(thumbs)).send({ score: 1 }).expect(200);
      await request(app).get(path(thumbs)).query({ score: "-1" }).expect(200);
      expect(mockOf(app).feedback({ key: "thumbs" }).map((f) => f.score)).toEqual([1, -1]);
    });
  });

  describe("expiry on the mock's clock", () => {
    it("a token lives 3 hours by default; at 3 h it is 404 Feedback token expired and records nothing", async () => {
      const token = tokenFor(app, "user_liked");
      expect(token.expires_at - token.created_at).toBe(3 * 3600_000);
      mockOf(app).clock.advance(3 * 3600_000 - 1);
      await request(app).post(path(token)).send({ score: 1 }).expect(200);
      mockOf(app).clock.advance(1);
      const post = await request(app).post(path(token)).send({ score: 1 });
      expect(post.status).toBe(404);
      expect(post.body).toEqual({ detail: "Feedback token expired" });
      const get = await request(app).get(path(token)).query({ score: "1" });
      expect(get.status).toBe(404);
      expect(get.body).toEqual({ detail: "Feedback token expired" });
      expect(mockOf(app).feedback()).toHaveLength(1);
    });

    it("POST /_mock/clock moves the same clock", async () => {
      const token = tokenFor(app, "user_liked");
      await request(app).post("/_mock/clock").send({ advance: "3h" }).expect(200);
      const res = await request(app).post(path(token)).send({ score: 1 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Feedback token expired" });
    });

    it("mock.clock.advance('3h') expires a token with a custom lifetime too", async () => {
      const token = tokenFor(app, "user_liked", { ttlMs: 60_000 });
      mockOf(app).clock.advance("59s");
      await request(app).get(path(token)).expect(200);
      mockOf(app).clock.advance("1s");
      expect((await request(app).get(path(token))).body).toEqual({ detail: "Feedback token expired" });
    });
  });

  describe("tokens that are not there or not tokens", () => {
    it("an unknown token is 404 Feedback token not found, by POST and by GET", async () => {
      const unknown = "/api/v1/feedback/tokens/3b0e7c1a-9f0b-4c8e-8d5a-2a6e1f0c9b7d";
      const post = await request(app).post(unknown).send({ score: 1 });
      expect(post.status).toBe(404);
      expect(post.body).toEqual({ detail: "Feedback token not found" });
      const get = await request(app).get(unknown);
      expect(get.status).toBe(404);
      expect(get.body).toEqual({ detail: "Feedback token not found" });
      expect(mockOf(app).feedback()).toEqual([]);
    });

    it("a token that is not a UUID is FastAPI's 422 at path.token", async () => {
      const res = await request(app).post("/api/v1/feedback/tokens/not-a-token").send({ score: 1 });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          {
            type: "uuid_parsing",
            loc: ["path", "token"],
            msg: "Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1",
            input: "not-a-token",
            ctx: { error: "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1" },
          },
        ],
      });
      const get = await request(app).get("/api/v1/feedback/tokens/1234");
      expect(get.status).toBe(422);
      expect(get.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "token"], input: "1234" });
    });
  });

  describe("a submission that fails validation records nothing and says why", () => {
    it("wrong types in the body are 422 entries naming each field", async () => {
      const token = tokenFor(app, "user_liked");
      const res = await request(app).post(path(token)).send({ score: "great", comment: 5, metadata: ["not", "an", "object"] });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
        ["float_parsing", ["body", "score"]],
        ["string_type", ["body", "comment"]],
        ["dict_type", ["body", "metadata"]],
      ]);
      expect(mockOf(app).feedback()).toEqual([]);
    });

    it("a GET whose score is no number or boolean is 422 at query.score", async () => {
      const token = tokenFor(app, "user_liked");
      const res = await request(app).get(path(token)).query({ score: "lots" });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ type: "float_parsing", loc: ["query", "score"], msg: "Input should be a valid number, unable to parse string as a number", input: "lots" }],
      });
      expect(mockOf(app).feedback()).toEqual([]);
    });

    it("a POST without a body is 422 missing body", async () => {
      const token = tokenFor(app, "user_liked");
      const res = await request(app).post(path(token));
      expect(res.status).toBe(422);
      expect(res.body).toEqual(fastApi422(missing("body")));
      expect(mockOf(app).feedback()).toEqual([]);
    });

    it("malformed JSON is FastAPI's json_invalid", async () => {
      const token = tokenFor(app, "user_liked");
      const res = await request(app).post(path(token)).set("Content-Type", "application/json").send('{"score": 1,');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [{ type: "json_invalid", loc: ["body", 12], msg: "JSON decode error", input: {}, ctx: { error: "Expecting property name enclosed in double quotes" } }] });
      expect(mockOf(app).feedback()).toEqual([]);
    });

    it("a body over the limit is 413", async () => {
      const small = createApp({ seed: 11, bodyLimit: "1kb" });
      const token = tokenFor(small, "user_liked");
      const res = await request(small).post(path(token)).send({ comment: "x".repeat(5000) });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ detail: "Request Entity Too Large" });
      expect(mockOf(small).feedback()).toEqual([]);
    });

    it("a bad token and a bad body are reported together, path first", async () => {
      const res = await request(app).post("/api/v1/feedback/tokens/xyz").send({ score: [1] });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ["path", "token"],
        ["body", "score"],
      ]);
    });

    it("validation comes before the token lookup: an invalid body on an unknown token is 422", async () => {
      const res = await request(app).post("/api/v1/feedback/tokens/3b0e7c1a-9f0b-4c8e-8d5a-2a6e1f0c9b7d").send({ comment: false });
      expect(res.status).toBe(422);
    });
  });

  it("reads a body as JSON only when it is sent as JSON, as FastAPI does (a text/plain post is what another site can send)", async () => {
    const token = tokenFor(app, "user_liked");
    const res = await request(app).post(path(token)).set("Content-Type", "text/plain").send('{"score": 1, "comment": "plain"}');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from", input: '{"score": 1, "comment": "plain"}' }] });
    expect(mockOf(app).feedback()).toEqual([]);
  });

  it("keeps __proto__ and constructor keys in metadata and correction as data", async () => {
    const token = tokenFor(app, "user_liked");
    const body = '{"metadata": {"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}, "correction": {"__proto__": 1}}';
    const res = await request(app).post(path(token)).set("Content-Type", "application/json").send(body);
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const [captured] = mockOf(app).feedback();
    expect(JSON.stringify(captured?.metadata)).toBe('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    expect(JSON.stringify(res.body.correction)).toBe('{"__proto__":1}');
  });

  it("needs no API key, even when one is configured", async () => {
    const keyed = createApp({ seed: 11, apiKey: "sekret" });
    const token = tokenFor(keyed, "user_liked");
    await request(keyed).post(path(token)).send({ score: 1 }).expect(200);
    await request(keyed).get(path(token)).expect(200);
    expect(mockOf(keyed).feedback()).toHaveLength(2);
  });

  describe("CORS for browser front ends", () => {
    it("answers a preflight for POST with a JSON content type", async () => {
      const token = tokenFor(app, "user_liked");
      const res = await request(app)
        .options(path(token))
        .set("Origin", "http://localhost:3000")
        .set("Access-Control-Request-Method", "POST")
        .set("Access-Control-Request-Headers", "content-type");
      expect(res.status).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(res.headers["access-control-allow-methods"]).toContain("POST");
      expect(res.headers["access-control-allow-headers"]).toBe("content-type");
      expect(mockOf(app).feedback()).toEqual([]);
    });

    it("lets the page read the answer, errors included", async () => {
      const token = tokenFor(app, "user_liked");
      const ok = await request(app).post(path(token)).set("Origin", "http://localhost:3000").send({ score: 1 });
      expect(ok.status).toBe(200);
      expect(ok.headers["access-control-allow-origin"]).toBe("*");
      const missing = await request(app).post("/api/v1/feedback/tokens/3b0e7c1a-9f0b-4c8e-8d5a-2a6e1f0c9b7d").set("Origin", "http://localhost:3000").send({});
      expect(missing.status).toBe(404);
      expect(missing.headers["access-control-allow-origin"]).toBe("*");
    });
  });

  it("the same seed and the same requests give byte-identical responses", async () => {
    const run = async () => {
      const fresh = createApp({ seed: 99, publicUrl: "http://mock.test" });
      const token = tokenFor(fresh, "user_liked");
      const a = await request(fresh).post(path(token)).send({ score: 1, metadata: { n: 1 } });
      const b = await request(fresh).get(path(token)).query({ score: "-1" });
      return [token.url, a.text, b.text];
    };
    expect(await run()).toEqual(await run());
  });
});
