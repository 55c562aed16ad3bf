import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, mockOf } from "../../src/index.js";
import { waitFor } from "./helpers.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

let a: ReturnType<typeof createApp>;
beforeAll(() => {
  a = createApp({
    seed: 4,
    fixtures: false,
    apiKey: "k",
    clock: { autoAdvance: false },
    scenarios: [{ name: "slow", events: [{ event: "values", data: { done: true }, delay_ms: 60_000 }] }],
  });
});
beforeEach(() => mockOf(a).reset());

describe("GET /metrics", () => {
  it("answers the real server's Prometheus text: run queue, workers and request counts by route template", async () => {
    const empty = await request(a).get("/metrics").expect(200);
    expect(empty.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(empty.text.split("\n").slice(0, 3)).toEqual([
      "# HELP lg_api_num_pending_runs The number of runs currently pending.",
      "# TYPE lg_api_num_pending_runs gauge",
      'lg_api_num_pending_runs{project_id="None", revision_id="None"} 0',
    ]);
    expect(empty.text).not.toContain("lg_api_http_requests_total");

    const tid = (await request(a).post("/threads").set("x-api-key", "k").send({}).expect(200)).body.thread_id;
    await request(a).get(`/threads/${tid}`).set("x-api-key", "k").expect(200);
    await request(a).get("/threads/00000000-0000-4000-8000-000000000000").set("x-api-key", "k").expect(404);
    const run = (await request(a).post(`/threads/${tid}/runs`).set("x-api-key", "k").send({ assistant_id: "agent", after_seconds: 30 }).expect(200)).body;
    await waitFor(() => runsIn(contextOf(mockOf(a))).get(run.run_id) !== undefined);
    mockOf(a).clock.advance("10s");
    await request(a).get("/ok").expect(200);

    const text = (await request(a).get("/agents/dep-1/metrics").expect(200)).text;
    const labels = 'project_id="dep-1", revision_id="None"';
    expect(text).toContain(`lg_api_num_pending_runs{${labels}} 1`);
    expect(text).toContain(`lg_api_num_running_runs{${labels}} 0`);
    expect(text).toContain(`lg_api_pending_runs_wait_time_max{${labels}} 10`);
    expect(text).toContain(`lg_api_workers_max{${labels}} 10`);
    expect(text).toContain(`lg_api_workers_available{${labels}} 10`);
    expect(text).toContain("# TYPE lg_api_http_requests_total counter");
    expect(text).toContain(`lg_api_http_requests_total{${labels}, method="GET", path="/threads/{thread_id}", status="200"} 1`);
    expect(text).toContain(`lg_api_http_requests_total{${labels}, method="GET", path="/threads/{thread_id}", status="404"} 1`);
    expect(text).toContain(`lg_api_http_requests_total{${labels}, method="POST", path="/threads", status="200"} 1`);
    // The real server leaves its meta routes out.
    expect(text).not.toMatch(/path="\/(ok|metrics)"/);
  });

  it("answers JSON with ?format=json: queue, api.http_requests_total and workers", async () => {
    await request(a).post("/threads").set("x-api-key", "k").send({}).expect(200);
    const res = await request(a).get("/metrics?format=json").expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      queue: { n_pending: 0, n_running: 0, pending_runs_wait_time_max_secs: null, pending_runs_wait_time_med_secs: null },
      api: { http_requests_total: [{ method: "POST", path: "/threads", status: 200, count: 1 }] },
      workers: { max: 10, active: 0, available: 10 },
    });
    // Another format is read as Prometheus, as the real server does.
    expect((await request(a).get("/metrics?format=xml").expect(200)).headers["content-type"]).toBe("text/plain; charset=utf-8");
  });
});

describe("GET /docs", () => {
  it("is a self-contained HTML page over /openapi.json that may load nothing from elsewhere", async () => {
    const res = await request(a).get("/docs").expect(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.headers["content-security-policy"]).toContain("connect-src 'self'");
    expect(res.text).toContain('fetch("/openapi.json")');
    // No URL of another origin anywhere in the page.
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    await request(a).get("/agents/dep-1/docs").expect(200);
    const doc = (await request(a).get("/openapi.json").expect(200)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/docs", "/metrics", "/threads/count", "/threads/prune", "/runs/batch", "/runs/cancel"]));
  });
});
