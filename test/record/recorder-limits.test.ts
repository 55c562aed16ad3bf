import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";
import { listener, send, sse, user, type Listener } from "./helpers.js";

/**
 * Issue 28, defect 8 (the recorder's part): bodies stream both ways, a run is held only up to the
 * limits to write its file, and background runs nobody joins are dropped after their time (on the
 * clock the recorder is given, here a test's own) or when too many wait.
 */

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A POST through the recorder whose body is written by `write` (chunk by chunk, no Content-Length). */
function post(base: string, path: string, write: (req: ReturnType<typeof request>) => Promise<void>, onChunk?: (chunk: string) => void): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path, method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        onChunk?.(chunk);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    write(req).then(() => req.end(), reject);
  });
}

describe("the recorder streams bodies both ways", () => {
  let server: Server;
  let targetUrl: string;
  let recorder: Recorder;
  let out: string;
  let route: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-stream-"));
    server = createServer((req, res) => route(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    recorder = await startRecorder({ target: targetUrl, out, port: 0 });
  });
  afterAll(async () => {
    await recorder?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    rmSync(out, { recursive: true, force: true });
  });

  it("forwards a request body's first bytes before the client has sent the rest", async () => {
    const targetGotFirstBytes = deferred();
    let received = 0;
    route = (req, res) => {
      req.on("data", (chunk: Buffer) => {
        received += chunk.length;
        targetGotFirstBytes.resolve();
      });
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ received })));
    };
    const head = `{"assistant_id":"agent","input":{"messages":[{"role":"user","content":"streamed upload ${"a".repeat(64 * 1024)}`;
    const tail = `"}]}}`;
    const answer = await post(recorder.url, "/runs/wait", async (req) => {
      req.write(head);
      // Were the body held until its end, the target would never see these bytes and this would not resolve.
      await targetGotFirstBytes.promise;
      req.write(tail);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).received).toBe(head.length + tail.length);
    await recorder.settled();
    const file = recorder.files.at(-1) as string;
    expect(file).toMatch(/rec-\d{3}-streamed-upload-a+\.yaml$/);
    expect((parse(readFileSync(file, "utf8")) as { events: unknown[] }).events).toEqual([{ event: "values", data: { received: head.length + tail.length } }]);
  });

  it("passes an answer's first event to the client before the target has sent the rest", async () => {
    const clientGotFirstEvent = deferred();
    route = (req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`event: metadata\ndata: {"run_id":"1ef4f6a0-0000-4000-8000-0000000000aa"}\n\nevent: values\ndata: {"step":1}\n\n`);
        // Were the answer held until its end, the client would never see step 1 and this would not resolve.
        void clientGotFirstEvent.promise.then(() => res.end(`event: values\ndata: {"step":2}\n\n`));
      });
    };
    let seen = "";
    const answer = await post(
      recorder.url,
      "/runs/stream",
      async (req) => void req.write(JSON.stringify({ assistant_id: "agent", input: user("streamed answer"), stream_mode: ["values"] })),
      (chunk) => {
        seen += chunk;
        if (seen.includes('{"step":1}')) clientGotFirstEvent.resolve();
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('data: {"step":2}');
    await recorder.settled();
    const written = parse(readFileSync(recorder.files.at(-1) as string, "utf8")) as { events: { event: string; data: unknown }[] };
    expect(written.events.map((e) => e.data)).toEqual([{ step: 1 }, { step: 2 }]);
  });
});

describe("the recorder holds a run only up to its limits", () => {
  let target: Listener;
  let recorder: Recorder;
  let out: string;
  const errors: string[] = [];
  let clock = 1_000_000;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-limits-"));
    target = await listener((hit, res) => {
      const background = /^\/threads\/(t\d+)\/runs$/.exec(hit.url);
      if (background) {
        const runId = `1ef4f6a0-0000-4000-8000-0000000000${(background[1] as string).slice(1).padStart(2, "0")}`;
        return res.writeHead(200, { "content-type": "application/json", "content-location": `/threads/${background[1]}/runs/${runId}` }).end(JSON.stringify({ run_id: runId, status: "pending" }));
      }
      if (hit.url.endsWith("/join")) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ joined: hit.url }));
      if (hit.url === "/runs/stream") {
        const body = JSON.parse(hit.body) as { input: { size: number } };
        return sse(res, "1ef4f6a0-0000-4000-8000-0000000000ff", [{ event: "values", data: { text: "x".repeat(body.input.size) } }]);
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ received: hit.body.length }));
    });
    recorder = await startRecorder({
      target: target.url,
      out,
      port: 0,
      limits: { requestBytes: 1024, answerBytes: 4096, pendingMs: 60_000, pendingRuns: 2, pendingBytes: 400 },
      now: () => clock,
      onError: (err) => errors.push(err.message),
    });
  });
  afterAll(async () => {
    await recorder?.close();
    await target?.close();
    rmSync(out, { recursive: true, force: true });
  });
  afterEach(() => {
    errors.length = 0;
  });

  const json = (path: string, body: unknown) => send(recorder.url, path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("forwards a run whose request is over the limit whole, and does not record it", async () => {
    const before = recorder.files.length;
    const body = { assistant_id: "agent", input: user(`big ${"b".repeat(3000)}`) };
    const answer = await json("/runs/wait", body);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ received: JSON.stringify(body).length });
    await recorder.settled();
    expect(recorder.files.length).toBe(before);
    expect(errors).toEqual(["POST /runs/wait was forwarded but not recorded: its request body is over 1024 bytes"]);
  });

  it("forwards a run whose answer is over the limit whole, and does not record it", async () => {
    const before = recorder.files.length;
    const answer = await json("/runs/stream", { assistant_id: "agent", input: { size: 8000 } });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("x".repeat(8000));
    await recorder.settled();
    expect(recorder.files.length).toBe(before);
    expect(errors).toEqual(["POST /runs/stream was forwarded but not recorded: its answer is over 4096 bytes"]);
    // Under the limit, the same run is recorded.
    await json("/runs/stream", { assistant_id: "agent", input: { size: 100 } });
    await recorder.settled();
    expect(recorder.files.length).toBe(before + 1);
  });

  it("drops a background run nobody joined within its time; one joined in time is recorded", async () => {
    const before = recorder.files.length;
    const late = JSON.parse((await json("/threads/t1/runs", { assistant_id: "agent", input: user("joined late") })).body) as { run_id: string };
    clock += 60_001;
    const joinedLate = await send(recorder.url, `/threads/t1/runs/${late.run_id}/join`);
    expect(joinedLate.status).toBe(200);
    await recorder.settled();
    expect(recorder.files.length).toBe(before);
    expect(errors).toEqual([`background run ${late.run_id} was not joined through the recorder within 60 s; it is not recorded`]);

    const inTime = JSON.parse((await json("/threads/t2/runs", { assistant_id: "agent", input: user("joined in time") })).body) as { run_id: string };
    clock += 59_999;
    await send(recorder.url, `/threads/t2/runs/${inTime.run_id}/join`);
    await recorder.settled();
    expect(recorder.files.length).toBe(before + 1);
    expect(recorder.files.at(-1)).toMatch(/rec-\d{3}-joined-in-time\.yaml$/);
  });

  it("keeps at most pendingRuns background runs, and pendingBytes of their requests, waiting: the oldest goes first", async () => {
    const before = recorder.files.length;
    const ids: string[] = [];
    for (const thread of ["t3", "t4", "t5"]) ids.push((JSON.parse((await json(`/threads/${thread}/runs`, { assistant_id: "agent", input: user(`waiting ${thread}`) })).body) as { run_id: string }).run_id);
    expect(errors).toEqual([`background run ${ids[0]} was dropped to keep at most 2 background runs (400 bytes of requests) waiting for a join; it is not recorded`]);
    await send(recorder.url, `/threads/t3/runs/${ids[0]}/join`);
    await send(recorder.url, `/threads/t5/runs/${ids[2]}/join`);
    await recorder.settled();
    expect(recorder.files.slice(before).map((f) => f.replace(/^.*rec-\d{3}-/, ""))).toEqual(["waiting-t5.yaml"]);

    // t4 still waits (about 85 bytes); a 375-byte request makes room by dropping it.
    errors.length = 0;
    const big = (JSON.parse((await json("/threads/t6/runs", { assistant_id: "agent", input: user(`waiting big ${"c".repeat(290)}`) })).body) as { run_id: string }).run_id;
    expect(errors).toEqual([`background run ${ids[1]} was dropped to keep at most 2 background runs (400 bytes of requests) waiting for a join; it is not recorded`]);
    await send(recorder.url, `/threads/t6/runs/${big}/join`);
    await recorder.settled();
    expect(recorder.files.at(-1)).toMatch(/rec-\d{3}-waiting-big-c+\.yaml$/);
  });
});
