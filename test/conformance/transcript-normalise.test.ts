import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { normaliseTranscript, type Transcript, type TranscriptExchange } from "../support/transcript-normalise.js";

const RUN = "1f0c2b3a-7d9e-6a1b-8c2d-3e4f5a6b7c8d";
const THREAD = "3f4c64e0-f792-4a5e-aa07-a4404e06e0bd";

function exchange(response: Partial<TranscriptExchange["response"]>, request: Partial<TranscriptExchange["request"]> = {}): TranscriptExchange {
  return {
    step: "s",
    request: { method: "POST", path: "/threads", headers: {}, body: null, ...request },
    response: { status: 200, headers: { "content-type": "application/json" }, body: null, ...response },
  };
}

function normalise(exchanges: TranscriptExchange[], baseUrls?: string[]): TranscriptExchange[] {
  const transcript: Transcript = { server: { name: "test" }, exchanges };
  if (baseUrls !== undefined) transcript.baseUrls = baseUrls;
  return normaliseTranscript(transcript).exchanges;
}

describe("normaliseTranscript", () => {
  it("numbers ids by first appearance across the whole transcript, in paths, headers, bodies and object keys", () => {
    const [first, second] = normalise([
      exchange({ body: { thread_id: THREAD, created_at: "2024-06-24T22:16:29.301522+00:00" } }),
      exchange(
        { headers: { "content-type": "application/json", "content-location": `/threads/${THREAD}/runs/${RUN}` }, body: { [RUN.toUpperCase()]: [RUN], at: "2026-11-23T19:23:25.075Z" } },
        { path: `/threads/${THREAD}/runs` },
      ),
    ]);
    expect(first?.response.body).toEqual({ thread_id: "<uuid:1>", created_at: "<time>" });
    expect(second?.request.path).toBe("/threads/<uuid:1>/runs");
    expect(second?.response.headers["content-location"]).toBe("/threads/<uuid:1>/runs/<uuid:2>");
    expect(second?.response.body).toEqual({ "<uuid:2>": ["<uuid:2>"], at: "<time>" });
  });

  it("replaces ids inside prefixed strings, 32-hex interrupt ids and the session's origins", () => {
    const [only] = normalise(
      [exchange({ body: { id: `run-${RUN}`, interrupt: "868f7eee39ba2948c8fe96843901a1e0", url: "http://127.0.0.1:43117/runs" } })],
      ["http://127.0.0.1:43117"],
    );
    expect(only?.response.body).toEqual({ id: "run-<uuid:1>", interrupt: "<hex:1>", url: "<base-url>/runs" });
  });

  it("hides the values of date, content-length and keep-alive but keeps the headers", () => {
    const [only] = normalise([exchange({ headers: { date: "Mon, 23 Nov 2026 19:23:08 GMT", "content-length": "159", "keep-alive": "timeout=5", "x-pagination-total": "1" } })]);
    expect(only?.response.headers).toEqual({ "content-length": "<length>", date: "<http-date>", "keep-alive": "<keep-alive>", "x-pagination-total": "1" });
  });

  it("parses pretty LF-framed and compact CRLF-framed event streams into the same events, keeping the framing facts", () => {
    const sse = { "content-type": "text/event-stream" };
    const pretty = `event: metadata\ndata: {\ndata:   "run_id": "${RUN}",\ndata:   "attempt": 1\ndata: }\nid: 0\n\n`;
    const compact = `event: metadata\r\ndata: {"run_id":"${RUN}","attempt":1}\r\n\r\n: heartbeat\r\n\r\n`;
    const [a, b] = normalise([exchange({ headers: sse, body: pretty }), exchange({ headers: sse, body: compact })]);
    expect(a?.response.body).toEqual({ lineEnding: "\n", hasIds: true, multiLineData: true, blocks: [{ event: "metadata", id: "<event-id:1>", data: { run_id: "<uuid:1>", attempt: 1 } }] });
    expect(b?.response.body).toEqual({
      lineEnding: "\r\n",
      hasIds: false,
      multiLineData: false,
      blocks: [{ event: "metadata", id: null, data: { run_id: "<uuid:1>", attempt: 1 } }, { comment: "heartbeat" }],
    });
  });

  it("turns production resumable ids (<ms>-<seq>) into placeholders like any other event id", () => {
    const [only] = normalise([exchange({ headers: { "content-type": "text/event-stream" }, body: "event: values\r\ndata: {}\r\nid: 1732390000000-0\r\n\r\n" })]);
    expect(only?.response.body).toMatchObject({ blocks: [{ event: "values", id: "<event-id:1>", data: {} }] });
  });

  it.each(["js-inmem-server", "js-inmem-server.via-recorder"])("reproduces the committed normal form of the captured transcript %s", (name) => {
    // conformance/capture.mjs writes both files; this keeps them and the normaliser in step.
    const raw = JSON.parse(readFileSync(new URL(`../../conformance/transcripts/${name}.json`, import.meta.url), "utf8")) as Transcript;
    const committed = JSON.parse(readFileSync(new URL(`../../conformance/transcripts/${name}.normalised.json`, import.meta.url), "utf8")) as unknown;
    expect(normaliseTranscript(raw)).toEqual(committed);
  });
});
