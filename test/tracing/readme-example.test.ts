import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer } from "../../src/index.js";

let mock: MockServer;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 42 });
  await mock.loadScenarios({
    name: "hello",
    match: { assistant_id: "agent" },
    turns: [
      {
        events: [
          { event: "updates", data: { agent: { messages: [{ type: "ai", content: "Hello! How can I help?" }] } } },
          { event: "values", data: { messages: [{ type: "ai", content: "Hello! How can I help?" }] } },
        ],
        end: "success",
      },
    ],
  });
});

afterAll(() => mock.close());

/** Streams one run as the app does; returns its thread, its run id and the URLs of the final `feedback` event. */
async function streamWithFeedback<K extends string>(feedbackKeys: K[]) {
  const client = new Client({ apiUrl: mock.url });
  const thread = await client.threads.create();
  let runId = "";
  let urls = {} as Record<K, string>;
  for await (const part of client.runs.stream(thread.thread_id, "agent", {
    input: { messages: [{ role: "user", content: "hi" }] },
    streamMode: ["updates", "values"],
    feedbackKeys,
  })) {
    if (part.event === "metadata") runId = (part.data as { run_id: string }).run_id;
    if (part.event === "feedback") urls = part.data as Record<K, string>;
  }
  return { threadId: thread.thread_id, runId, urls };
}

it("one key per option: records the thumbs-up the front end posts", async () => {
  const { threadId, runId, urls } = await streamWithFeedback(["user_liked", "user_disliked"]);

  // What the front end does when the user clicks 👍 (no API key: the URL is pre-signed).
  const res = await fetch(urls.user_liked, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ score: 1, comment: "Great answer", metadata: { ui: "chat" } }),
  });
  expect(res.status).toBe(200);

  expect(mock.feedback({ thread_id: threadId })).toMatchObject([
    { key: "user_liked", score: 1, comment: "Great answer", metadata: { ui: "chat" }, method: "POST", scenario: "hello" },
  ]);
  expect(mock.feedback({ key: "user_disliked" })).toEqual([]);

  // The run is traced as a deployment traces it: a root run under the run's id, one child run per node.
  expect(mock.traces({ trace_id: runId })).toMatchObject([
    { id: runId, parent_run_id: null, inputs: { messages: [{ role: "user", content: "hi" }] }, status: "success" },
    { name: "agent", parent_run_id: runId, outputs: { messages: [{ type: "ai", content: "Hello! How can I help?" }] } },
  ]);
});

it("one key with scores: records 👍 as 1 and 👎 as -1", async () => {
  const { threadId, urls } = await streamWithFeedback(["thumbs"]);

  await fetch(`${urls.thumbs}?score=1`); // GET works too, with the fields in the query
  await fetch(urls.thumbs, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ score: -1 }) });

  expect(mock.feedback({ key: "thumbs", thread_id: threadId }).map((f) => f.score)).toEqual([1, -1]);
});
