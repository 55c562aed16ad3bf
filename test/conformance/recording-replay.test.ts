import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer } from "../../src/index.js";
import { runConformanceSession } from "../support/conformance-session.js";
import { startRecordingProxy, type RecordingProxy } from "../support/recording-proxy.js";
import { normaliseTranscript, type Transcript } from "../support/transcript-normalise.js";
import { diffTranscripts, type TranscriptDifference } from "../support/transcript-diff.js";
import { ALLOWANCES as CONFORMANCE_ALLOWANCES, claims } from "../support/conformance-allowances.js";

/**
 * Issue 12 item 4: conformance/capture.mjs ran the conformance session against the open-source JS in-memory
 * Agent Server through the mock's recorder (`agent-platform-mock record`), committing the scenario files it
 * wrote (conformance/recordings/) and the transcript the client saw (…via-recorder.json). Here a mock holding
 * only those files replays the same session through the real SDK, and the two transcripts are compared.
 *
 * What a recording decides — the events of each run's stream (name and data), the result of wait and join,
 * the status of run requests — must match except for the items of docs/recording.md "Replay differences"
 * (each allowance below names one; each must be used). Everything else (headers, SSE framing, thread and
 * history shapes, errors) is the mock's own behaviour, and must be a difference the conformance notes
 * explain (the allowances of test/conformance/js-server-replay.test.ts).
 */

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
const RAW = JSON.parse(read("../../conformance/transcripts/js-inmem-server.via-recorder.json")) as Transcript;
const RECORDING_DOC = read("../../docs/recording.md");

/** The steps that play a recorded run, and the parts of their answers a recording decides. */
const RUN_STEP = /^runs\.(stream|wait|joinStream|join)\b/;
const RECORDED_PART = /^response\.(status|body)(\.|$)/;
/** SSE framing and event ids are the server's, not the recording's (conformance notes 1 and 2). */
const FRAMING = /^response\.body\.(lineEnding|hasIds|multiLineData)$|^response\.body\.blocks\.[^.]+\.id$/;

const recorded = (d: TranscriptDifference) => RUN_STEP.test(d.step) && RECORDED_PART.test(d.path) && !FRAMING.test(d.path);

interface ReplayAllowance {
  /** The numbered item of docs/recording.md "Replay differences". */
  item: number;
  steps: RegExp;
  paths: RegExp;
}

const REPLAY_ALLOWANCES: ReplayAllowance[] = [
  { item: 1, steps: /^runs\.joinStream background run$/, paths: /^response\.body$/ },
  { item: 2, steps: /^runs\.joinStream resumable with lastEventId$/, paths: /^response\.body\.blocks\./ },
  { item: 3, steps: /^runs\.join background run$/, paths: /^response\.body\.(messages|__interrupt__)$/ },
];

const claimedForReplay = (a: ReplayAllowance, d: TranscriptDifference) => a.steps.test(d.step) && a.paths.test(d.path);
const show = (value: unknown) => (value === undefined ? "(absent)" : JSON.stringify(value).slice(0, 160));
const describeDifference = (d: TranscriptDifference) => `#${d.exchange} ${d.step}: ${d.path}: recorded ${show(d.expected)}, replayed ${show(d.actual)}`;

describe("a session recorded from the JS in-memory server through the recorder, replayed by the mock", () => {
  let mock: MockServer;
  let proxy: RecordingProxy;
  let differences: TranscriptDifference[];

  beforeAll(async () => {
    mock = await startMockServer({ port: 0, seed: 7, fixtures: [new URL("../../conformance/fixtures/graphs.json", import.meta.url).pathname], scenarios: [new URL("../../conformance/recordings", import.meta.url).pathname] });
    proxy = await startRecordingProxy(mock.url);
    const client = new Client({ apiUrl: proxy.baseUrl, apiKey: null, callerOptions: { maxRetries: 0 } });
    await runConformanceSession({ client, baseUrl: proxy.baseUrl, step: proxy.setStep });
    await proxy.settle();
    // The recording keeps the recorded server's origin where the graph quoted it (langgraph_api_url): it is
    // the last of the capture's origins, and normalises to <base-url> like the replay's own.
    const recordedFrom = RAW.baseUrls?.at(-1);
    if (recordedFrom === undefined) throw new Error("the committed transcript names no origins");
    const replay: Transcript = { server: { name: "agent-platform-mock" }, baseUrls: [proxy.baseUrl, mock.url, recordedFrom], exchanges: proxy.exchanges };
    differences = diffTranscripts(normaliseTranscript(RAW), normaliseTranscript(replay));
  });
  afterAll(async () => {
    await proxy?.close();
    await mock?.close();
  });

  it("makes the same requests, step by step, as the recorded session", () => {
    expect(differences.filter((d) => d.path === "exchange" || d.path.startsWith("request.")).map(describeDifference)).toEqual([]);
  });

  it("replays every recorded run's events and results, except the listed replay differences", () => {
    const unclaimed = differences.filter((d) => recorded(d) && !REPLAY_ALLOWANCES.some((a) => claimedForReplay(a, d)));
    expect(unclaimed.map(describeDifference)).toEqual([]);
  });

  it("differs elsewhere only where the conformance notes explain the mock's own behaviour", () => {
    const unclaimed = differences.filter((d) => !recorded(d) && !CONFORMANCE_ALLOWANCES.some((a) => claims(a, d)));
    expect(unclaimed.map(describeDifference)).toEqual([]);
  });

  it("uses every replay allowance, each naming an item of docs/recording.md 'Replay differences'", () => {
    expect(REPLAY_ALLOWANCES.filter((a) => !differences.some((d) => recorded(d) && claimedForReplay(a, d))).map((a) => a.item)).toEqual([]);
    const section = RECORDING_DOC.slice(RECORDING_DOC.indexOf("## Replay differences"));
    const items = new Set([...section.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1])));
    expect(RECORDING_DOC).toContain("## Replay differences");
    expect(REPLAY_ALLOWANCES.map((a) => a.item).filter((n) => !items.has(n))).toEqual([]);
  });

  it("compares the events themselves: the stateless run's recorded error and the first stream's chunks are replayed", () => {
    const stateless = RAW.exchanges.findIndex((e) => e.step === "runs.stream stateless, legacy messages mode");
    expect(String(RAW.exchanges[stateless]?.response.body)).toContain("GraphValueError");
    expect(differences.filter((d) => d.exchange === stateless && recorded(d))).toEqual([]);
    // The same comparison sees a changed token at once.
    const normal = normaliseTranscript(RAW);
    const changed = structuredClone(normal);
    const first = changed.exchanges[8]?.response.body as { blocks: { event: string; data: [{ content: string }] }[] };
    const chunk = first.blocks.find((b) => b.event === "messages");
    if (chunk === undefined) throw new Error("no messages chunk in the first stream");
    chunk.data[0].content = "X";
    expect(diffTranscripts(normal, changed).filter(recorded).map((d) => d.path)).toEqual([expect.stringMatching(/^response\.body\.blocks\.\d+\(messages\)\.data\.0\.content$/)]);
  });
});
