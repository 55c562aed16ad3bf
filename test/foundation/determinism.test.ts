import request from "supertest";
import type { Express } from "express";
import { describe, expect, it } from "vitest";
import { BUNDLED_SCENARIOS, createApp, mockOf } from "../../src/index.js";
import { rawText, sseEvents } from "../support/sse.js";

/**
 * A session touching all three services and the admin API. Returns every response as raw text
 * (status, the headers that carry content, body), so two runs can be compared byte for byte.
 */
async function session(app: Express): Promise<string[]> {
  const out: string[] = [];
  const record = (res: request.Response) => {
    out.push(`${res.status} ${res.headers["content-type"] ?? ""} ${res.headers["content-location"] ?? ""}\n${res.text ?? JSON.stringify(res.body)}`);
    return res;
  };
  record(await request(app).get("/v2/auth/providers"));
  record(await request(app).post("/v2/auth/providers").send({ provider_id: "jira", name: "Jira", client_id: "c", auth_url: "https://j/a", token_url: "https://j/t" }));
  record(await request(app).get("/v2/deployments?limit=5"));
  const repos = record(await request(app).get("/v1/integrations/github/3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c/repos"));
  const repo = (repos.body as { host_integration_id: string; url: string; default_branch: string }[])[0]!;
  const created = record(
    await request(app)
      .post("/v2/deployments")
      .send({
        name: "determinism-check",
        source: "github",
        source_config: { integration_id: repo.host_integration_id, repo_url: repo.url, deployment_type: "dev", build_on_push: false },
        source_revision_config: { repo_ref: repo.default_branch, langgraph_config_path: "langgraph.json" },
        secrets: [],
      }),
  );
  record(await request(app).get(`/v2/deployments/${(created.body as { id: string }).id}/revisions`));
  const thread = record(await request(app).post("/threads").send({ metadata: {} }));
  const threadId = (thread.body as { thread_id: string }).thread_id;
  const stream = record(
    await request(app)
      .post(`/threads/${threadId}/runs/stream`)
      .send({ assistant_id: "agent", input: { messages: [{ role: "user", content: "What's the weather in Paris?" }] }, stream_mode: ["updates", "values", "messages-tuple"], feedback_keys: ["user_liked"] })
      .buffer(true)
      .parse(rawText),
  );
  const feedback = sseEvents(stream.text ?? (stream.body as string)).find((e) => e.event === "feedback")?.data as Record<string, string>;
  const tokenPath = new URL(feedback.user_liked as string).pathname;
  record(await request(app).post(tokenPath).send({ score: 1, comment: "great" }));
  record(await request(app).get("/_mock/feedback"));
  record(await request(app).get(`/threads/${threadId}/state`));
  return out;
}

describe("determinism: one seed, the same requests, byte-identical responses", () => {
  const options = { seed: 42, scenarios: [BUNDLED_SCENARIOS], publicUrl: "http://mock.test" };

  it("two apps with the same seed answer every request identically", async () => {
    const first = await session(createApp(options));
    const second = await session(createApp(options));
    expect(first).toHaveLength(11);
    expect(second).toEqual(first);
    // The session did reach every service: a stream with a feedback event, recorded feedback.
    expect(first[7]).toContain("event: feedback");
    expect(first[9]).toContain('"key":"user_liked"');
  });

  it("a different seed gives different ids", async () => {
    const a = await session(createApp(options));
    const b = await session(createApp({ ...options, seed: 43 }));
    expect(b[6]).not.toEqual(a[6]);
  });

  it("reset() returns to the state right after start: the session replays byte for byte", async () => {
    const app = createApp(options);
    const first = await session(app);
    mockOf(app).reset();
    expect(await session(app)).toEqual(first);
  });
});
