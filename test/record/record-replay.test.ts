import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { normaliseTranscript, type Transcript } from "../support/transcript-normalise.js";
import { capturingClient, drain, recordAndReplay, user } from "./helpers.js";

/** Issue 12 item 4: a session session.recorded through the proxy replays against a mock holding only the recording. */

const API_KEY = "sk-recording-test-key-0123456789";
/** The fixed session: a thread with an approval interrupt and its resume, then a stateless run. */
async function runSession(baseUrl: string): Promise<Transcript> {
  const { client, at, transcript } = capturingClient(baseUrl);
  at("threads.create");
  const thread = await client.threads.create();
  at("turn 1: interrupt for approval");
  await drain(client.runs.stream(thread.thread_id, "agent", { input: user("Email the quarterly report to the team"), streamMode: ["values", "updates"] }));
  at("state while interrupted");
  await client.threads.getState(thread.thread_id);
  at("turn 2: resume");
  await drain(client.runs.stream(thread.thread_id, "agent", { command: { resume: "approve" }, streamMode: ["updates", "values"] }));
  at("state when done");
  await client.threads.getState(thread.thread_id);
  at("stateless run");
  await drain(client.runs.stream(null, "agent", { input: user("What's the weather in Paris?"), streamMode: ["values", "updates", "messages-tuple"] }));
  return transcript();
}

describe("record, then replay the recording", () => {
  const session = recordAndReplay({ upstream: { apiKey: API_KEY, scenarios: [BUNDLED_SCENARIOS] }, apiKey: API_KEY, session: runSession });

  it("writes one file per thread (its runs as turns) and one per stateless run", () => {
    expect(session.recorder.files.map((f) => f.slice(session.out.length + 1))).toEqual(["rec-001-email-the-quarterly-report-to-the-team.yaml", "rec-002-what-s-the-weather-in-paris.yaml"]);
    const thread = parse(readFileSync(session.recorder.files[0] as string, "utf8")) as Record<string, any>;
    expect(thread.match).toEqual({ assistant_id: "agent", input: { messages: [{ content: { $contains: "Email the quarterly report to the team" } }] } });
    expect(thread.turns).toHaveLength(2);
    expect(thread.turns[0].end).toEqual({ interrupt: { value: expect.objectContaining({ question: "Send this email?" }), node: "human_review" } });
    expect(thread.turns[1].end).toBe("success");
    expect(thread.turns[1].events.map((e: { event: string }) => e.event)).toEqual(["updates", "updates", "updates", "values"]);
  });

  it("turns ids into templates and keeps the API key out", () => {
    const texts = session.recorder.files.map((f) => readFileSync(f, "utf8"));
    expect(texts[0]).toContain('"{{id.message-1}}"');
    expect(texts[1]).toContain("run-{{run_id}}-1");
    const upstreamIds = session.upstream.requests({}).flatMap((r) => [...`${r.path}`.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)].map((m) => m[0]));
    expect(upstreamIds.length).toBeGreaterThan(0);
    for (const text of texts) {
      for (const id of upstreamIds) expect(text).not.toContain(id);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    }
  });

  it("passes the API key through to the target", () => {
    const runs = session.upstream.requests({ path: "/threads" }).filter((r) => r.method === "POST");
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.status < 400)).toBe(true);
  });

  it("the session.recorded files pass validate", () => {
    const problems: unknown[] = [];
    const docs = readDocuments([session.out], [], true);
    expect(docs).toHaveLength(2);
    problems.push(...validateScenarioDocuments(docs));
    expect(problems).toEqual([]);
  });

  it("replaying gives the session.recorded transcript, normalised for ids and times", () => {
    expect(session.replayed.exchanges.map((e) => e.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const a = normaliseTranscript(session.recorded);
    const b = normaliseTranscript(session.replayed);
    const events = (t: Transcript) => t.exchanges.map((e) => (typeof e.response.body === "object" && e.response.body !== null && "blocks" in e.response.body ? (e.response.body as { blocks: unknown[] }).blocks : null));
    // The SSE events and their order first (the clearest failure), then every exchange whole.
    expect(events(b)).toEqual(events(a));
    expect(b.exchanges).toEqual(a.exchanges);
  });
});
