import { Client as LangGraphClient } from "@langchain/langgraph-sdk";
import { Client as LangSmithClient } from "langsmith";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BUNDLED_SCENARIOS, startMockServer, type MockServer } from "../../src/index.js";

/**
 * What the real clients do under injected faults (docs/faults.md): both retry a 5xx and a 429 with
 * their own back-off (neither reads Retry-After), give up at once on a 4xx, and a run stream refused
 * before its first byte is asked for again. The journal shows every attempt and the rule that hit it.
 */
describe("the real clients under faults", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ seed: 12, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  const attempts = (route: string) => mock.requests({ route }).map((e) => [e.status, e.fault?.kind ?? null]);

  it("SDK 2.x retries a POST answered 503 and succeeds on the next attempt", async () => {
    mock.control.faults.add({ match: { route: "threads.create", attempt: 1 }, fault: { status: { status: 503, body: { detail: "Service Unavailable" }, headers: { "Retry-After": "0" } } } });
    const thread = await new LangGraphClient({ apiUrl: mock.url }).threads.create();
    expect(thread.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(attempts("threads.create")).toEqual([
      [503, "status"],
      [200, null],
    ]);
  });

  it("SDK 2.x gives up at once on a 409, with the scripted body in its error", async () => {
    mock.control.faults.add({ match: { route: "threads.create" }, fault: { status: { status: 409, body: { detail: "Conflict" } } }, times: 1 });
    await expect(new LangGraphClient({ apiUrl: mock.url }).threads.create()).rejects.toThrow(/409/);
    expect(attempts("threads.create")).toEqual([[409, "status"]]);
  });

  it("SDK 2.x asks again for a run stream refused with 502 before it started", async () => {
    const client = new LangGraphClient({ apiUrl: mock.url });
    const thread = await client.threads.create();
    mock.control.faults.add({ match: { method: "POST", path: "/threads/*/runs/stream", attempt: 1 }, fault: { status: { status: 502 } } });
    const events: string[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "agent", { input: { messages: [{ role: "user", content: "hello" }] } })) events.push(part.event);
    expect(events[0]).toBe("metadata");
    expect(events.length).toBeGreaterThan(1);
    expect(attempts("runs.stream")).toEqual([
      [502, "status"],
      [200, null],
    ]);
  });

  it("the langsmith client retries createFeedback answered 429", async () => {
    mock.control.faults.add({ match: { route: "feedback.create", attempt: 1 }, fault: { status: { status: 429, body: { detail: "Too Many Requests" }, headers: { "Retry-After": "1" } } } });
    const client = new LangSmithClient({ apiUrl: `${mock.tracingUrl}/api/v1`, apiKey: "k", autoBatchTracing: false });
    const created = await client.createFeedback("0198c0de-0000-7000-8000-000000000042", "helpful", { score: 1 });
    expect(mock.feedback({ key: "helpful" })).toMatchObject([{ id: created.id, score: 1 }]);
    expect(attempts("feedback.create")).toEqual([
      [429, "status"],
      [200, null],
    ]);
  });
});
