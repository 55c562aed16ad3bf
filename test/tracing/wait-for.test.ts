import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";

/** `mock.waitFor.*` resolves when what a test expects arrives, so tests need no polling loops. */
describe("mock.waitFor", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ seed: 2, fixtures: false });
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  const submit = (key: string) =>
    fetch(`${mock.tracingUrl}/api/v1/feedback`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ key, run_id: null, score: 1 }) });

  it("resolves with the feedback once it arrives, and at once when it is there already", async () => {
    const waiting = mock.waitFor.feedback({ key: "liked" });
    let settled = false;
    void waiting.then(() => (settled = true));
    await submit("other");
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    await submit("liked");
    const [item] = await waiting;
    expect(item).toMatchObject({ key: "liked", score: 1, method: "POST" });
    expect(await mock.waitFor.feedback({ key: "liked" })).toHaveLength(1);
  });

  it("waits for a count of requests matching a route", async () => {
    const waiting = mock.waitFor.request({ route: "feedback.create" }, { count: 2 });
    await submit("a");
    await submit("b");
    expect((await waiting).map((e) => e.status)).toEqual([200, 200]);
  });

  it("rejects after its timeout saying what it waited for, and refuses an unknown filter key", async () => {
    await expect(mock.waitFor.feedback({ key: "never" }, { timeout: 50 })).rejects.toThrow('waited 50 ms for 1 feedback matching {"key":"never"}; 0 matches so far');
    await expect(mock.waitFor.feedback({ score: 1 } as never)).rejects.toThrow(/unknown feedback filter "score"/);
    await expect(mock.waitFor.run({ status: "success" }, { timeout: 20 })).rejects.toThrow(/waited 20 ms for 1 run/);
  });
});
