import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client as LangGraphClient } from "@langchain/langgraph-sdk";
import { Client as LangGraphClient1 } from "langgraph-sdk-1";
import { Client as LangSmithClient } from "langsmith";
import { defineScenario, startMockServer, type CapturedFeedback, type MockServer } from "../../src/index.js";

const SCENARIO = defineScenario({
  name: "greeting",
  match: { assistant_id: "agent" },
  turns: [
    {
      events: [
        { event: "updates", data: { agent: { messages: [{ type: "ai", content: "Hello! How can I help?" }] } } },
        { event: "values", data: { messages: [{ type: "human", content: "hi" }, { type: "ai", content: "Hello! How can I help?" }] } },
      ],
      end: "success",
    },
  ],
});

/**
 * The loop the product exists for: a run streamed by the real LangGraph SDK hands out feedback URLs,
 * the "front end" calls them with fetch, and the test sees the feedback through every surface.
 */
describe("full loop: SDK run → feedback URLs → fetch → assertions", () => {
  let mock: MockServer;
  let langgraph: LangGraphClient;
  let langsmith: LangSmithClient;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 8 });
    await mock.loadScenarios(SCENARIO);
    langgraph = new LangGraphClient({ apiUrl: mock.url });
    langsmith = new LangSmithClient({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "unused", autoBatchTracing: false });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset("feedback"));

  /** Streams one run with feedback keys; returns the run id, thread id and the `feedback` event's URLs. */
  async function streamRun(feedbackKeys: string[]) {
    const thread = await langgraph.threads.create();
    const events: { event: string; data: unknown }[] = [];
    for await (const part of langgraph.runs.stream(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "hi" }] },
      streamMode: ["updates", "values"],
      feedbackKeys,
    })) {
      events.push(part);
    }
    const last = events[events.length - 1];
    expect(last?.event).toBe("feedback");
    const runId = (events[0]?.data as { run_id: string }).run_id;
    return { runId, threadId: thread.thread_id, urls: last?.data as Record<string, string>, events };
  }

  it("one key per option: the stream ends with {user_liked: url, user_disliked: url}, and each URL records by POST and GET", async () => {
    const { runId, threadId, urls, events } = await streamRun(["user_liked", "user_disliked"]);
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "values", "feedback"]);
    expect(Object.keys(urls)).toEqual(["user_liked", "user_disliked"]);
    for (const url of Object.values(urls)) expect(url).toMatch(new RegExp(`^${mock.tracingUrl}/api/v1/feedback/tokens/[0-9a-f-]{36}$`));

    // The run the mock keeps knows the same URLs.
    const run = (await fetch(`${mock.url}/_mock/runs/${runId}`).then((r) => r.json())) as { feedback_urls: Record<string, string> };
    expect(run.feedback_urls).toEqual(urls);

    // What a web front end does: POST JSON for one button, GET with a query for the other.
    const liked = await fetch(urls.user_liked!, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 1, comment: "spot on", metadata: { ui: "thumbs" } }) });
    expect(liked.status).toBe(200);
    const disliked = await fetch(`${urls.user_disliked}?score=1&comment=too%20short`);
    expect(disliked.status).toBe(200);
    expect(await disliked.json()).toMatchObject({ key: "user_disliked", run_id: runId, score: 1, comment: "too short" });

    // Through the admin API …
    const admin = (await fetch(`${mock.url}/_mock/feedback?run_id=${runId}`).then((r) => r.json())) as { items: CapturedFeedback[]; count: number };
    expect(admin.count).toBe(2);
    expect(admin.items).toEqual([
      {
        id: expect.any(String),
        token_id: urls.user_liked!.split("/").pop(),
        key: "user_liked",
        run_id: runId,
        thread_id: threadId,
        assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca", // the default assistant of graph "agent"
        scenario: "greeting",
        score: 1,
        value: null,
        comment: "spot on",
        correction: null,
        metadata: { ui: "thumbs" },
        method: "POST",
        received_at: expect.stringMatching(/^2026-01-15T/),
      },
      expect.objectContaining({ key: "user_disliked", method: "GET", score: 1, comment: "too short", thread_id: threadId, metadata: null }),
    ]);
    // … through the library API …
    expect(mock.feedback({ key: "user_liked" })).toEqual([admin.items[0]]);
    expect(mock.feedback({ thread_id: threadId }).map((f) => f.key)).toEqual(["user_liked", "user_disliked"]);
    // … and through the real langsmith client.
    const listed = [];
    for await (const feedback of langsmith.listFeedback({ runIds: [runId] })) listed.push(feedback);
    expect(listed.map((f) => [f.key, f.score, f.comment]).sort()).toEqual([
      ["user_disliked", 1, "too short"],
      ["user_liked", 1, "spot on"],
    ]);
    expect(listed.every((f) => f.run_id === runId && f.feedback_source?.type === "api")).toBe(true);
  });

  it("one key with scores 1 and -1: every click is one more record on the same key", async () => {
    const { runId, urls } = await streamRun(["thumbs"]);
    expect(Object.keys(urls)).toEqual(["thumbs"]);
    await fetch(urls.thumbs!, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 1 }) });
    await fetch(`${urls.thumbs}?score=-1`);
    expect(mock.feedback({ key: "thumbs", run_id: runId }).map((f) => [f.method, f.score])).toEqual([
      ["POST", 1],
      ["GET", -1],
    ]);
    const listed = [];
    for await (const feedback of langsmith.listFeedback({ runIds: [runId], feedbackKeys: ["thumbs"] })) listed.push(feedback.score);
    expect(listed.sort()).toEqual([-1, 1]);
  });

  it("the run's URLs expire 3 hours later on the mock's clock", async () => {
    const { urls } = await streamRun(["user_liked"]);
    mock.clock.advance("3h");
    const res = await fetch(urls.user_liked!, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 1 }) });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: "Feedback token expired" });
    expect(mock.feedback()).toEqual([]);
  });

  it("works the same with the 1.x SDK (1.15)", async () => {
    const client = new LangGraphClient1({ apiUrl: mock.url });
    const thread = await client.threads.create();
    let urls: Record<string, string> = {};
    for await (const part of client.runs.stream(thread.thread_id, "agent", { input: { messages: [] }, feedbackKeys: ["user_liked"] })) {
      if (part.event === "feedback") urls = part.data as Record<string, string>;
    }
    await fetch(urls.user_liked!, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: 1 }) });
    expect(mock.feedback({ thread_id: thread.thread_id })).toMatchObject([{ key: "user_liked", score: 1, scenario: "greeting" }]);
  });

  it("the LangSmith token listing knows the run's tokens", async () => {
    const { runId, urls } = await streamRun(["user_liked", "user_disliked"]);
    const tokens = [];
    for await (const token of langsmith.listPresignedFeedbackTokens(runId)) tokens.push(token.url);
    expect(tokens).toEqual([urls.user_liked, urls.user_disliked]);
  });
});

describe("a separate tracing origin (tracingPort)", () => {
  it("hands out URLs on the tracing port, which records them; a browser preflight from the app's origin passes", async () => {
    const mock = await startMockServer({ port: 0, tracingPort: 0, seed: 8 });
    try {
      await mock.loadScenarios(SCENARIO);
      expect(mock.tracingUrl).not.toBe(mock.url);
      const client = new LangGraphClient({ apiUrl: mock.url });
      const thread = await client.threads.create();
      let urls: Record<string, string> = {};
      for await (const part of client.runs.stream(thread.thread_id, "agent", { input: {}, feedbackKeys: ["user_liked"] })) {
        if (part.event === "feedback") urls = part.data as Record<string, string>;
      }
      expect(urls.user_liked).toMatch(new RegExp(`^${mock.tracingUrl}/api/v1/feedback/tokens/`));
      const preflight = await fetch(urls.user_liked!, {
        method: "OPTIONS",
        headers: { Origin: mock.url, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
      });
      expect(preflight.status).toBe(200);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
      await fetch(urls.user_liked!, { method: "POST", headers: { Origin: mock.url, "Content-Type": "application/json" }, body: JSON.stringify({ score: 1 }) });
      expect(mock.feedback({ thread_id: thread.thread_id })).toMatchObject([{ key: "user_liked", score: 1 }]);
    } finally {
      await mock.close();
    }
  });
});
