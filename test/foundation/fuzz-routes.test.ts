import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { listenDuringTests } from "../support/listening.js";
import { BUNDLED_SCENARIOS, createApp, mockOf } from "../../src/index.js";
import { contextOf } from "../../src/mock-control.js";

/**
 * A bounded property-based fuzz over every declared route: random path parameters, query strings,
 * headers and JSON bodies (nested, with `__proto__` and `constructor` keys) never get a 5xx or a stack
 * trace, and the mock is intact afterwards (health, feedback and journal listings answer).
 */
describe("fuzz: no input to any route yields a 5xx", () => {
  const app = createApp({ seed: 9, scenarios: [BUNDLED_SCENARIOS] });
  // Streams that never end by design are left out: their handlers answer before the body ends.
  const routes = contextOf(mockOf(app))
    .routes.list()
    .filter((r) => r.method !== "HEAD" && r.path !== "/_mock/events");

  const segment = fc.oneof(fc.uuid(), fc.constantFrom("agent", "nope", "0", "..", "%00", "%F0%9F%98%80", "a".repeat(300)), fc.string({ maxLength: 12 }).map(encodeURIComponent));
  const key = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "limit", "offset", "status", "metadata", "input", "name", "key", "score"), fc.string({ maxLength: 8 }));
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.constant(null), fc.boolean(), fc.double(), fc.integer(), fc.string({ maxLength: 20 }), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(key, tie("value"), { maxKeys: 5 })),
  })).value;
  const query = fc.dictionary(key.filter((k) => k.length > 0), fc.oneof(fc.string({ maxLength: 10 }), fc.integer().map(String), fc.constantFrom("true", "-1", "1e400", "")), { maxKeys: 4 });

  const baseUrl = listenDuringTests(app);

  it("every route, random inputs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.array(segment, { minLength: 4, maxLength: 4 }), query, fc.option(json, { nil: undefined }), fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })), { nil: undefined }), async (route, segments, q, body, tenant) => {
        let i = 0;
        const path = route.path.replace(/:[a-z_]+/g, () => segments[i++ % segments.length] as string);
        const params = new URLSearchParams(q as Record<string, string>);
        // A valid wait long-polls for its default 5 s: the fuzz asks for 10 ms (the answer is the same, a 408).
        if (route.path.startsWith("/_mock/wait/") && !params.has("timeout")) params.set("timeout", "10");
        const search = params.toString();
        let req = request(baseUrl())[route.method.toLowerCase() as "get"](`${path}${search ? `?${search}` : ""}`);
        if (tenant !== undefined) req = req.set("X-Tenant-Id", tenant);
        const res = body === undefined ? await req : await req.set("Content-Type", "application/json").send(JSON.stringify(body));
        expect(res.status, `${route.method} ${path}?${search} ${JSON.stringify(body)?.slice(0, 200)}`).toBeLessThan(500);
        expect(res.text ?? "").not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
      }),
      { numRuns: 400, seed: 20261123, interruptAfterTimeLimit: 15_000 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await request(baseUrl()).get("/_mock/health")).status).toBe(200);
    expect((await request(baseUrl()).get("/_mock/feedback")).status).toBe(200);
    expect((await request(baseUrl()).get("/_mock/requests")).status).toBe(200);
  }, 60_000);
});
