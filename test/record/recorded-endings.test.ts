import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import { readDocuments } from "../../src/core/read-documents.js";
import { validateScenarioDocuments } from "../../src/agent-server/scenario-validation.js";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";

/** Each ending, wait and background runs, and redaction, recorded through the proxy with plain HTTP. */

const SECRET = "lsv2_pt_0123456789abcdef0123456789abcdef";
const user = (content: string) => ({ messages: [{ role: "user", content }] });

describe("recording endings, wait and background runs", () => {
  let upstream: MockServer;
  let recorder: Recorder;
  let out: string;
  const post = (path: string, body: unknown) => fetch(`${recorder.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const file = (index: number) => parse(readFileSync(recorder.files[index] as string, "utf8")) as Record<string, any>;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-"));
    upstream = await startMockServer({ port: 0, seed: 42, fixtures: false, scenarios: [BUNDLED_SCENARIOS] });
    recorder = await startRecorder({ target: upstream.url, out, port: 0, format: "yaml" });
    const thread = (await (await post("/threads", {})).json()) as { thread_id: string };
    // 0: error ending on a thread
    await (await post(`/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", input: user("What is the stock price of ACME?"), stream_mode: ["updates"] })).text();
    // 1: disconnect, stateless: the proxy cuts the client's stream as the target cut its own
    const cut = await post("/runs/stream", { assistant_id: "agent", input: user("please hang up"), stream_mode: ["values"] });
    await expect(cut.text()).rejects.toThrow();
    // 2: wait, with a secret in the message and in the input
    await (await post("/runs/wait", { assistant_id: "agent", input: { ...user(`What's the weather? my key is ${SECRET}`), api_key: "plain-secret-value" } })).text();
    // 3: refused before streaming
    await (await post("/runs/stream", { assistant_id: "agent", input: user("hi"), metadata: { simulate: "refusal" } })).text();
    // 4: background run, joined through the proxy
    const bgThread = (await (await post("/threads", {})).json()) as { thread_id: string };
    const run = (await (await post(`/threads/${bgThread.thread_id}/runs`, { assistant_id: "agent", input: user("What's the weather in Paris?") })).json()) as { run_id: string };
    await (await fetch(`${recorder.url}/threads/${bgThread.thread_id}/runs/${run.run_id}/join`)).text();
    await recorder.settled();
  });
  afterAll(async () => {
    await recorder?.close();
    await upstream?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it("writes an error ending from the stream's error event", () => {
    expect(recorder.files).toHaveLength(5);
    expect(file(0).end).toEqual({ error: { error: expect.any(String), message: expect.any(String) } });
    expect(file(0).events.map((e: { event: string }) => e.event)).toEqual(["updates"]);
  });

  it("writes a cut stream as a disconnect", () => {
    expect(file(1).end).toBe("disconnect");
    expect(file(1).events.map((e: { event: string }) => e.event)).toEqual(["values"]);
  });

  it("writes a wait run as one values event, with secrets redacted", () => {
    const text = readFileSync(recorder.files[2] as string, "utf8");
    expect(file(2).events.map((e: { event: string }) => e.event)).toEqual(["values"]);
    expect(file(2).end).toBe("success");
    expect(text).toContain("[redacted]");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("plain-secret-value");
  });

  it("writes a refusal as an http ending", () => {
    expect(file(3).end).toEqual({ http: { status: 403, detail: "Forbidden" } });
  });

  it("writes a background run from its join", () => {
    expect(file(4).events).toEqual([{ event: "values", data: expect.objectContaining({ messages: expect.any(Array) }) }]);
  });

  it("every file passes validate", () => {
    expect(validateScenarioDocuments(readDocuments([out], [], true))).toEqual([]);
  });
});
