import request from "supertest";
import { describe, expect, it } from "vitest";
import { listenDuringTests } from "../support/listening.js";
import { BUNDLED_SCENARIOS, createApp, mockOf } from "../../src/index.js";
import { contextOf } from "../../src/mock-control.js";

/**
 * Bad input gets the real service's error, never a 500: every route the mock registers is called
 * with path parameters that exist and that do not, and with bodies of every wrong shape. Each route
 * gets every parameter and every body; the bodies are dealt out among the parameters rather than
 * crossed with them (a route reads its path before its body, and test/foundation/fuzz-routes.test.ts
 * crosses random ones), which keeps the walk to ~1,400 requests.
 */
describe("no request produces a 500 or a stack trace", () => {
  const app = createApp({ seed: 5, scenarios: [BUNDLED_SCENARIOS] });
  // The change feed (GET /_mock/events) never ends by design; test/inspector/change-feed.test.ts covers it.
  const routes = contextOf(mockOf(app)).routes.list().filter((r) => r.method !== "HEAD" && r.path !== "/_mock/events");
  const bodies: [string, string][] = [
    ["no body", ""],
    ["malformed JSON", '{"a": '],
    ["a JSON array", "[1, 2, 3]"],
    ["a JSON string", '"text"'],
    ["null", "null"],
    ["__proto__ and constructor keys", '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "name": {"$ne": 1}}'],
    ["JSON nested 10,000 deep", "[".repeat(10_000) + "]".repeat(10_000)],
    ["wrong types everywhere", '{"name": 1, "source": [], "input": 5, "assistant_id": {}, "score": "high", "metadata": "x", "limit": -1}'],
  ];
  const params = ["not-a-uuid", "00000000-0000-4000-8000-000000000000", "..%2F..%2Fetc", "%00"];
  const baseUrl = listenDuringTests(app);

  it("covers the routes of every service", () => {
    const paths = routes.map((r) => r.path);
    for (const prefix of ["/v2/auth/providers", "/v1/integrations", "/v2/deployments", "/threads", "/runs", "/assistants", "/api/v1/feedback", "/_mock"]) {
      expect(paths.some((p) => p.startsWith(prefix))).toBe(true);
    }
  });

  it.each(params.map((param, i) => [param, i] as const))("with path parameter %s", async (param, i) => {
    const dealt = bodies.filter((_, b) => b % params.length === i);
    for (const route of routes) {
      const path = route.path.replace(/:[a-z_]+/g, param);
      for (const [label, body] of route.method === "GET" || route.method === "DELETE" ? [bodies[0]!] : dealt) {
        const res = await request(baseUrl())
          [route.method.toLowerCase() as "get"](`${path}?limit=abc&offset=-5&stream_mode=nope`)
          .set("Content-Type", "application/json")
          .send(body)
          .timeout(10_000);
        const where = `${route.method} ${path} with ${label}`;
        expect(res.status, where).toBeLessThan(500);
        expect(res.text, where).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // What those requests left behind does not break the listings.
    await request(baseUrl()).get("/_mock/requests").expect(200);
    await request(baseUrl()).get("/_mock/feedback").expect(200);
    await request(baseUrl()).get("/_mock/health").expect(200);
    // Each case walks every route of every service (hundreds of requests): more than one test's usual time on a busy machine.
  }, 60_000);
});
