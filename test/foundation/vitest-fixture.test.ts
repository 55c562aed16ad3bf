import { describe, expect } from "vitest";
import { test } from "../../src/vitest.js";

// The `agent-platform-mock/vitest` fixture against the run's mock (started by the globalSetup in
// vitest.config.ts). Tests here run one after another: each gets the same mock, reset.
const run = (url: string) => fetch(`${url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "agent" }) }).then((r) => r.json());

describe("agent-platform-mock/vitest", () => {
  test("hands the test the run's mock, which serves the globalSetup's scenarios", async ({ mock }) => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await run(mock.url)).toEqual({ said: "hello" });
    expect(await mock.loadScenarios({ name: "test-only", events: [{ event: "values", data: { said: "override" } }] })).toEqual(["test-only"]);
    expect(await run(mock.url)).toEqual({ said: "override" });
    expect((await mock.requests({ path: "/runs" })).map((r) => r.status)).toEqual([200, 200]);
  });

  test("each test gets it reset: the previous test's scenario and requests are gone", async ({ mock }) => {
    expect(await mock.requests()).toEqual([]);
    expect(await run(mock.url)).toEqual({ said: "hello" });
  });
});
