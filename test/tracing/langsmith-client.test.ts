import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client } from "langsmith";
import { startMockServer, type MockServer } from "../../src/index.js";

const RUN_ID = "0198c0de-2222-7000-8000-000000000001";
const OTHER_RUN = "0198c0de-2222-7000-8000-000000000002";

/** The real langsmith client, unchanged, pointed at the mock's tracing service. */
describe("the langsmith client (0.12) against the mock", () => {
  let mock: MockServer;
  let client: Client;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 21, apiKey: "ls-test-key" });
    client = new Client({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "ls-test-key", autoBatchTracing: false });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  it("createPresignedFeedbackToken gives a URL that records feedback when called", async () => {
    const token = await client.createPresignedFeedbackToken(RUN_ID, "user_liked");
    expect(token.url).toBe(`${mock.tracingUrl}/api/v1/feedback/tokens/${token.id}`);
    expect(token.expires_at).toBe("2026-01-15T12:00:00.000000+00:00");
    const res = await fetch(token.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 1, comment: "from the page" }) });
    expect(res.status).toBe(200);
    expect(mock.feedback({ token_id: token.id })).toMatchObject([{ key: "user_liked", run_id: RUN_ID, score: 1, comment: "from the page" }]);
  });

  it("createPresignedFeedbackToken honours an expiration as a timedelta or an instant", async () => {
    const short = await client.createPresignedFeedbackToken(RUN_ID, "k", { expiration: { minutes: 5 } });
    expect(short.expires_at).toBe("2026-01-15T09:05:00.000000+00:00");
    const at = await client.createPresignedFeedbackToken(RUN_ID, "k", { expiration: "2026-01-16T00:00:00Z", feedbackConfig: { type: "continuous", min: -1, max: 1 } });
    expect(at.expires_at).toBe("2026-01-16T00:00:00.000000+00:00");
  });

  it("listPresignedFeedbackTokens pages through a run's tokens", async () => {
    const made = [];
    for (let i = 0; i < 105; i++) made.push((await client.createPresignedFeedbackToken(RUN_ID, `key_${i}`)).id);
    await client.createPresignedFeedbackToken(OTHER_RUN, "elsewhere");
    const listed = [];
    for await (const token of client.listPresignedFeedbackTokens(RUN_ID)) listed.push(token.id);
    expect(listed).toEqual(made);
    // 105 tokens: one full page of 100, then 5.
    expect(mock.requests({ path: "/api/v1/feedback/tokens", method: "GET" }).map((r) => [r.query.offset, r.query.limit])).toEqual([
      ["0", "100"],
      ["100", "100"],
    ]);
  });

  it("listFeedback and readFeedback see what the token URLs recorded", async () => {
    const liked = await client.createPresignedFeedbackToken(RUN_ID, "user_liked");
    const other = await client.createPresignedFeedbackToken(OTHER_RUN, "user_liked");
    await fetch(`${liked.url}?score=1&comment=good`);
    await fetch(other.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 0 }) });
    const listed = [];
    for await (const feedback of client.listFeedback({ runIds: [RUN_ID] })) listed.push(feedback);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ run_id: RUN_ID, key: "user_liked", score: 1, comment: "good", feedback_source: { type: "api" } });
    const read = await client.readFeedback(listed[0]!.id);
    expect(read).toEqual(listed[0]);
    const byKey = [];
    for await (const feedback of client.listFeedback({ feedbackKeys: ["user_liked"], feedbackSourceTypes: ["api"] })) byKey.push(feedback.run_id);
    expect(byKey.sort()).toEqual([RUN_ID, OTHER_RUN].sort());
  });

  it("createFeedback posts to /feedback (after GET /info) and the mock records it", async () => {
    const created = await client.createFeedback(RUN_ID, "correctness", { score: 0.75, comment: "checked", sourceInfo: { reviewer: "bot" } });
    const [captured] = mock.feedback({ key: "correctness" });
    expect(captured).toMatchObject({ id: created.id, token_id: null, run_id: RUN_ID, score: 0.75, comment: "checked", metadata: { reviewer: "bot" }, method: "POST" });
    const read = await client.readFeedback(created.id);
    expect(read).toMatchObject({ id: created.id, key: "correctness", score: 0.75, feedback_source: { type: "api", metadata: { reviewer: "bot" } } });
    expect(mock.requests({ path: "/api/v1/info" })).toHaveLength(1);
  });

  it("createFeedback with a traceId goes with the runs, as a feedback part of the multipart ingest endpoint", async () => {
    const traced = new Client({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "ls-test-key" });
    const created = await traced.createFeedback(RUN_ID, "helpfulness", { score: 1, traceId: OTHER_RUN });
    await traced.awaitPendingTraceBatches();
    expect(mock.requests({ path: "/api/v1/runs/multipart", method: "POST" }).map((r) => r.status)).toEqual([202]);
    expect(mock.feedback({ key: "helpfulness" })).toMatchObject([{ id: created.id, run_id: RUN_ID }]);
    expect(await traced.readFeedback(created.id)).toMatchObject({ trace_id: OTHER_RUN, is_root: false });
  });

  it("updateFeedback and deleteFeedback change and remove what createFeedback made", async () => {
    const created = await client.createFeedback(RUN_ID, "correctness", { score: 1, comment: "first look" });
    await client.updateFeedback(created.id, { score: 0.5, comment: "second look" });
    expect(await client.readFeedback(created.id)).toMatchObject({ score: 0.5, comment: "second look" });
    await client.deleteFeedback(created.id);
    expect(mock.feedback()).toEqual([]);
    await expect(client.readFeedback(created.id)).rejects.toThrow(/404/);
  });

  it("a wrong API key surfaces as the client's 401 error", async () => {
    const wrong = new Client({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "nope" });
    await expect(wrong.createPresignedFeedbackToken(RUN_ID, "k")).rejects.toThrow(/401.*Invalid token/s);
  });
});
