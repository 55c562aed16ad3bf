import request from "supertest";
import { Client } from "langsmith";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp, mockOf, startMockServer, type MockServer } from "../../src/index.js";

const T0 = "2026-01-15T09:00:00.000000+00:00";
const TENANT = "00000000-0000-4000-8000-00000000c0de";
const SCORE = { type: "continuous", min: 0, max: 1 };

describe("/api/v1/feedback-configs over HTTP", () => {
  const app = createApp({ seed: 4, fixtures: false });
  beforeEach(() => mockOf(app).reset());

  it("creates, lists, updates and deletes one config per key", async () => {
    const created = await request(app).post("/api/v1/feedback-configs").send({ feedback_key: "helpful", feedback_config: SCORE });
    expect([created.status, created.body]).toEqual([200, { feedback_key: "helpful", feedback_config: SCORE, tenant_id: TENANT, modified_at: T0, is_lower_score_better: false }]);
    mockOf(app).clock.advance("1m");
    await request(app).post("/api/v1/feedback-configs").send({ feedback_key: "tone", feedback_config: { type: "categorical", categories: [{ value: 0, label: "rude" }, { value: 1 }] } }).expect(200);
    expect((await request(app).post("/api/v1/feedback-configs").send({ feedback_key: "tone", feedback_config: SCORE })).status).toBe(409);
    // Newest modified first by default; sort_by_desc=false turns it round; filters by key and name.
    expect((await request(app).get("/api/v1/feedback-configs")).body.map((c: { feedback_key: string }) => c.feedback_key)).toEqual(["tone", "helpful"]);
    expect((await request(app).get("/api/v1/feedback-configs?sort_by_desc=false")).body.map((c: { feedback_key: string }) => c.feedback_key)).toEqual(["helpful", "tone"]);
    expect((await request(app).get("/api/v1/feedback-configs?key=helpful&key=nope")).body).toHaveLength(1);
    expect((await request(app).get("/api/v1/feedback-configs?name_contains=ON")).body.map((c: { feedback_key: string }) => c.feedback_key)).toEqual(["tone"]);
    expect((await request(app).get("/api/v1/feedback-configs?limit=1&offset=1")).body.map((c: { feedback_key: string }) => c.feedback_key)).toEqual(["helpful"]);
    const patched = await request(app).patch("/api/v1/feedback-configs").send({ feedback_key: "helpful", is_lower_score_better: true });
    expect(patched.body).toMatchObject({ feedback_key: "helpful", feedback_config: SCORE, is_lower_score_better: true, modified_at: "2026-01-15T09:01:00.000000+00:00" });
    expect((await request(app).patch("/api/v1/feedback-configs").send({ feedback_key: "nope" })).status).toBe(404);
    expect((await request(app).delete("/api/v1/feedback-configs?feedback_key=helpful")).status).toBe(204);
    expect((await request(app).get("/api/v1/feedback-configs")).body).toHaveLength(1);
    const missing = await request(app).delete("/api/v1/feedback-configs");
    expect([missing.status, missing.body.detail[0].loc]).toEqual([422, ["query", "feedback_key"]]);
  });

  it("refuses a config without a type and a limit past 100, FastAPI style", async () => {
    const res = await request(app).post("/api/v1/feedback-configs").send({ feedback_key: "k", feedback_config: {} });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "feedback_config", "type"] });
    expect((await request(app).get("/api/v1/feedback-configs?limit=101")).status).toBe(422);
  });
});

describe("/api/v1/feedback/formulas and /api/v1/feedback/eager", () => {
  const app = createApp({ seed: 4, fixtures: false });
  const SESSION = "0198c0de-0000-7000-8000-0000000000aa";

  it("keeps formulas, and the literal path is never taken for a feedback id", async () => {
    const body = { session_id: SESSION.toUpperCase(), feedback_key: "overall", aggregation_type: "avg", formula_parts: [{ part_type: "weighted_key", weight: 2, key: "helpful" }] };
    const created = await request(app).post("/api/v1/feedback/formulas").send(body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ session_id: SESSION, dataset_id: null, feedback_key: "overall", created_at: T0, modified_at: T0 });
    expect((await request(app).get("/api/v1/feedback/formulas")).body).toEqual([created.body]);
    expect((await request(app).get(`/api/v1/feedback/formulas?session_id=${SESSION}`)).body).toHaveLength(1);
    expect((await request(app).get("/api/v1/feedback/formulas?dataset_id=0198c0de-0000-7000-8000-0000000000bb")).body).toEqual([]);
    const id = created.body.id;
    expect((await request(app).get(`/api/v1/feedback/formulas/${id}`)).body).toEqual(created.body);
    const updated = await request(app).put(`/api/v1/feedback/formulas/${id}`).send({ feedback_key: "overall", aggregation_type: "sum", formula_parts: body.formula_parts });
    expect(updated.body.aggregation_type).toBe("sum");
    expect((await request(app).delete(`/api/v1/feedback/formulas/${id}`)).body).toEqual({});
    expect((await request(app).get(`/api/v1/feedback/formulas/${id}`)).status).toBe(404);
    expect((await request(app).post("/api/v1/feedback/formulas").send({ ...body, formula_parts: [] })).body.detail[0]).toMatchObject({ type: "too_short", loc: ["body", "formula_parts"] });
  });

  it("POST /feedback/eager records like POST /feedback", async () => {
    const res = await request(app).post("/api/v1/feedback/eager").send({ key: "eager", run_id: "0198c0de-0000-7000-8000-0000000000cc", score: 1 });
    expect(res.status).toBe(200);
    expect(mockOf(app).feedback({ key: "eager" })).toMatchObject([{ score: 1, run_id: "0198c0de-0000-7000-8000-0000000000cc" }]);
  });
});

describe("the langsmith client's feedback-config methods against the mock", () => {
  let mock: MockServer;
  let client: Client;
  beforeAll(async () => {
    mock = await startMockServer({ seed: 5, fixtures: false, apiKey: "ls-key" });
    client = new Client({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "ls-key", autoBatchTracing: false });
  });
  afterAll(() => mock.close());

  it("createFeedbackConfig, listFeedbackConfigs, updateFeedbackConfig, add/removeFeedbackCategories and deleteFeedbackConfig", async () => {
    const created = await client.createFeedbackConfig({ feedbackKey: "quality", feedbackConfig: { type: "categorical", categories: [{ value: 0, label: "bad" }, { value: 1, label: "good" }] } });
    expect(created).toMatchObject({ feedback_key: "quality", tenant_id: TENANT });
    await client.createFeedbackConfig({ feedbackKey: "speed", feedbackConfig: { type: "continuous", min: 0, max: 10 }, isLowerScoreBetter: true });
    const listed = [];
    for await (const config of client.listFeedbackConfigs()) listed.push(config.feedback_key);
    expect(listed.sort()).toEqual(["quality", "speed"]);
    const only = [];
    for await (const config of client.listFeedbackConfigs({ feedbackKeys: ["speed"] })) only.push(config);
    expect(only).toMatchObject([{ feedback_key: "speed", is_lower_score_better: true }]);
    const updated = await client.updateFeedbackConfig("speed", { feedbackConfig: { type: "continuous", min: 0, max: 5 } });
    expect(updated.feedback_config).toEqual({ type: "continuous", min: 0, max: 5 });
    // The documented server has no category edits: it ignores them and answers with the config unchanged.
    expect((await client.addFeedbackCategories("quality", [{ value: 2, label: "great" }])).feedback_config).toEqual(created.feedback_config);
    expect((await client.removeFeedbackCategories("quality", [0])).feedback_config).toEqual(created.feedback_config);
    await client.deleteFeedbackConfig("quality");
    const left = [];
    for await (const config of client.listFeedbackConfigs()) left.push(config.feedback_key);
    expect(left).toEqual(["speed"]);
  });
});
