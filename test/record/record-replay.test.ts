import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";
import { normaliseTranscript, type Transcript, type TranscriptExchange } from "../support/transcript-normalise.js";
import { capturingFetch, drain } from "./helpers.js";

/** Issue 12 item 4: a session recorded through the proxy replays against a mock holding only the recording. */

const API_KEY = "sk-recording-test-key-0123456789";
const user = (content: string) => ({ messages: [{ role: "user", content }] });
/** The fixed session: a thread with an approval interrupt and its resume, then a stateless run. */
async function runSession(baseUrl: string): Promise<Transcript> {
  const exchanges: TranscriptExchange[] = [];
  let step = "";
  const client = new Client({ apiUrl: baseUrl, apiKey: null, callerOptions: { maxRetries: 0, fetch: capturingFetch(exchanges, () => step) } });
  step = "threads.create";
  const thread = await client.threads.create();
  step = "turn 1: interrupt for approval";
  await drain(client.runs.stream(thread.thread_id, "agent", { input: user("Email the quarterly report to the team"), streamMode: ["values", "updates"] }));
  step = "state while interrupted";
  await client.threads.getState(thread.thread_id);
  step = "turn 2: resume";
  await drain(client.runs.stream(thread.thread_id, "agent", { command: { resume: "approve" }, streamMode: ["updates", "values"] }));
  step = "state when done";
  await client.threads.getState(thread.thread_id);
  step = "stateless run";
  await drain(client.runs.stream(null, "agent", { input: user("What's the weather in Paris?"), streamMode: ["values", "updates", "messages-tuple"] }));
  return { server: { server: "agent-platform-mock" }, baseUrls: [baseUrl], exchanges };
}

describe("record, then replay the recording", () => {
  let upstream: MockServer;
  let replay: MockServer;
  let recorder: Recorder;
  let out: string;
  let recorded: Transcript;
  let replayed: Transcript;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-"));
    upstream = await startMockServer({ port: 0, seed: 42, fixtures: false, apiKey: API_KEY, scenarios: [BUNDLED_SCENARIOS] });
    recorder = await startRecorder({ target: upstream.url, apiKey: API_KEY, out, port: 0 });
    recorded = await runSession(recorder.url);
    await recorder.settled();
    replay = await startMockServer({ port: 0, seed: 7, fixtures: false, scenarios: [out] });
    replayed = await runSession(replay.url);
  });
  afterAll(async () => {
    await recorder?.close();
    await upstream?.close();
    await replay?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it("writes one file per thread (its runs as turns) and one per stateless run", () => {
    expect(recorder.files.map((f) => f.slice(out.length + 1))).toEqual(["rec-001-email-the-quarterly-report-to-the-team.yaml", "rec-002-what-s-the-weather-in-paris.yaml"]);
    const thread = parse(readFileSync(recorder.files[0] as string, "utf8")) as Record<string, any>;
    expect(thread.match).toEqual({ assistant_id: "agent", input: { messages: [{ content: { $contains: "Email the quarterly report to the team" } }] } });
    expect(thread.turns).toHaveLength(2);
    expect(thread.turns[0].end).toEqual({ interrupt: { value: expect.objectContaining({ question: "Send this email?" }), node: "human_review" } });
    expect(thread.turns[1].end).toBe("success");
    expect(thread.turns[1].events.map((e: { event: string }) => e.event)).toEqual(["updates", "updates", "updates", "values"]);
  });

  it("turns ids into templates and keeps the API key out", () => {
    const texts = recorder.files.map((f) => readFileSync(f, "utf8"));
    expect(texts[0]).toContain('"{{id.message-1}}"');
    expect(texts[1]).toContain("run-{{run_id}}-1");
    const upstreamIds = upstream.requests({}).flatMap((r) => [...`${r.path}`.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)].map((m) => m[0]));
    expect(upstreamIds.length).toBeGreaterThan(0);
    for (const text of texts) {
      for (const id of upstreamIds) expect(text).not.toContain(id);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    }
  });

  it("passes the API key through to the target", () => {
    const runs = upstream.requests({ path: "/threads" }).filter((r) => r.method === "POST");
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.status < 400)).toBe(true);
  });

  it("the recorded files pass validate", () => {
    const problems: unknown[] = [];
    const docs = readDocuments([out], [], true);
    expect(docs).toHaveLength(2);
    problems.push(...validateScenarioDocuments(docs));
    expect(problems).toEqual([]);
  });

  it("replaying gives the recorded transcript, normalised for ids and times", () => {
    expect(replayed.exchanges.map((e) => e.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const a = normaliseTranscript(recorded);
    const b = normaliseTranscript(replayed);
    const events = (t: Transcript) => t.exchanges.map((e) => (typeof e.response.body === "object" && e.response.body !== null && "blocks" in e.response.body ? (e.response.body as { blocks: unknown[] }).blocks : null));
    // The SSE events and their order first (the clearest failure), then every exchange whole.
    expect(events(b)).toEqual(events(a));
    expect(b.exchanges).toEqual(a.exchanges);
  });
});
