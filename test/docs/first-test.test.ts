import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer } from "../../src/index.js";

let mock: MockServer;
let client: Client;

// What a chat model streams: tokens as `messages-tuple` events ([chunk, metadata]), then the state.
const greeting = {
  name: "greeting",
  match: { assistant_id: "agent" },
  events: [
    { event: "messages", data: [{ type: "AIMessageChunk", id: "ai-1", content: "Hello" }, { langgraph_node: "agent", langgraph_step: 1 }] },
    { event: "messages", data: [{ type: "AIMessageChunk", id: "ai-1", content: "! How can I help?" }, { langgraph_node: "agent", langgraph_step: 1 }] },
    {
      event: "values",
      data: {
        messages: [
          { type: "human", id: "human-1", content: "{{input.messages.0.content}}" },
          { type: "ai", id: "ai-1", content: "Hello! How can I help?" },
        ],
      },
    },
  ],
};

beforeAll(async () => {
  // One mock for the file: a free port, a seed for repeatable ids, no control-plane fixtures.
  mock = await startMockServer({ seed: 42, fixtures: false, scenarios: [greeting] });
  client = new Client({ apiUrl: mock.url });
});

// Back to the state right after start: threads, feedback, overrides and faults of the last test are gone.
beforeEach(() => mock.reset());

afterAll(() => mock.close());

/** What the application under test does: stream a reply, keep the text, the error and the feedback URLs. */
async function chat(text: string, feedbackKeys: string[] = []) {
  const thread = await client.threads.create();
  let reply = "";
  let error: unknown;
  let feedbackUrls: Record<string, string> = {};
  for await (const part of client.runs.stream(thread.thread_id, "agent", {
    input: { messages: [{ role: "user", content: text }] },
    streamMode: "messages-tuple",
    feedbackKeys,
  })) {
    if (part.event === "messages") reply += (part.data as [{ content: string }, unknown])[0].content;
    if (part.event === "error") error = part.data;
    if (part.event === "feedback") feedbackUrls = part.data as Record<string, string>;
  }
  return { reply, error, feedbackUrls };
}

const thumbsUp = (url: string) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ score: 1 }) });

it("streams the reply token by token", async () => {
  expect((await chat("hi")).reply).toBe("Hello! How can I help?");
});

it("records the thumbs-up the user gives", async () => {
  const { feedbackUrls } = await chat("hi", ["user_liked"]);
  expect((await thumbsUp(feedbackUrls.user_liked!)).status).toBe(200);
  expect(mock.feedback({ key: "user_liked" })).toMatchObject([{ key: "user_liked", score: 1 }]);
});

it("shows the model's error when an override makes the run fail", async () => {
  // use(): wins over every other scenario until reset() (or the returned handle is called).
  mock.use({ name: "model-down", end: { error: { error: "RateLimitError", message: "model overloaded" } } });
  const { reply, error } = await chat("hi");
  expect(reply).toBe("");
  expect(error).toEqual({ error: "RateLimitError", message: "model overloaded" });
});

it("keeps working when the feedback service fails once", async () => {
  const { feedbackUrls } = await chat("hi", ["user_liked"]);
  // A fault rule: the next feedback submission answers 503; nothing is recorded for it.
  mock.control.faults.add({ match: { route: "feedback_tokens.submit" }, fault: { status: { status: 503 } }, times: 1 });
  expect((await thumbsUp(feedbackUrls.user_liked!)).status).toBe(503);
  expect(mock.feedback()).toEqual([]);
  expect((await thumbsUp(feedbackUrls.user_liked!)).status).toBe(200);
  expect(mock.feedback()).toHaveLength(1);
});
