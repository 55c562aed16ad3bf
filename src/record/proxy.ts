import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { isPlainObject } from "../core/json.js";
import { Redactor } from "./redaction.js";
import { ScenarioWriter, type RecordedRun } from "./scenario-writer.js";
import { SseTranscript } from "./sse-transcript.js";

export interface RecorderOptions {
  /** The Agent Server to record (a deployment's URL, path prefix kept). */
  target: string;
  /** Sent as `X-Api-Key` when the client sends none; redacted from every file. */
  apiKey?: string;
  /** Folder the scenario files are written to (created when missing). */
  out: string;
  port?: number;
  host?: string;
  format?: "yaml" | "json";
  /** Told each time a file is written (the CLI prints it). */
  onFile?: (file: string) => void;
  /** Told when a run could not be written (an unwritable folder); the proxy keeps forwarding. */
  onError?: (err: Error) => void;
}

export interface Recorder {
  /** Where clients connect: `http://HOST:PORT`. */
  url: string;
  /** The scenario files written so far, in the order their first run ended. */
  readonly files: readonly string[];
  /** Resolves once every run that has ended is on disk. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** The run routes (under the target's prefix): stateless or on a thread; stream, wait or background. */
const RUN_ROUTE = /^(?:\/threads\/([^/?]+))?\/runs(\/stream|\/wait)?$/;
/** Joining a background run: its stream or its final values. */
const JOIN_ROUTE = /^\/threads\/([^/?]+)\/runs\/([^/?]+)\/(stream|join)$/;
/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host"]);

/**
 * The recording proxy of `agent-platform-mock record` (DESIGN §9): forwards every request to the target
 * unchanged and streams every answer back as it arrives, and meanwhile hands each run it saw to the
 * scenario writer when the run ends. Delays are measured on the wall clock on purpose: they are the
 * real server's pace, which is what a recording keeps (the mock's clock plays them back).
 */
export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/+$/, "");
  const redactor = new Redactor([options.apiKey]);
  const writer = new ScenarioWriter({ out: options.out, format: options.format ?? "yaml", redactor, source: `${target.protocol}//${target.host}${prefix}` });
  /** Background runs waiting for a join through the proxy to show their events. */
  const background = new Map<string, RecordedRun>();
  const now = () => performance.now();
  /** Runs that ended and are being written (an interrupted one first asks for its thread's state). */
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    const done = work.catch((err: unknown) => options.onError?.(err as Error)).finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  const settled = async () => {
    while (inFlight.size) await Promise.all(inFlight);
    await writer.settled();
  };

  const forward = (req: IncomingMessage, body: Buffer, onResponse: (upstream: IncomingMessage) => void, onError: (err: Error) => void) => {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    if (options.apiKey && headers["x-api-key"] === undefined) headers["x-api-key"] = options.apiKey;
    if (body.length) headers["content-length"] = String(body.length);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const upstream = send(new URL(`${prefix}${req.url ?? "/"}`, target), { method: req.method, headers }, onResponse);
    upstream.on("error", onError);
    upstream.end(body);
    return upstream;
  };

  /** After an interrupt, the thread's state names the node that stopped (the stream does not). */
  const interruptNode = async (threadId: string, clientHeaders: IncomingHttpHeaders): Promise<string | undefined> => {
    const headers: Record<string, string> = {};
    const key = typeof clientHeaders["x-api-key"] === "string" ? clientHeaders["x-api-key"] : options.apiKey;
    if (key) headers["x-api-key"] = key;
    if (typeof clientHeaders.authorization === "string") headers.authorization = clientHeaders.authorization;
    try {
      const res = await fetch(new URL(`${prefix}/threads/${encodeURIComponent(threadId)}/state`, target), { headers });
      const state = (await res.json()) as unknown;
      const next = isPlainObject(state) && Array.isArray(state.next) ? state.next[0] : undefined;
      return typeof next === "string" ? next : undefined;
    } catch {
      return undefined; // the ending then uses the mock's default node
    }
  };

  const finish = async (run: RecordedRun, clientHeaders: IncomingHttpHeaders) => {
    const interrupted = run.events.some((e) => isPlainObject(e.data) && "__interrupt__" in e.data) || (isPlainObject(run.body) && "__interrupt__" in run.body);
    if (interrupted && run.threadId !== null) run.interruptNode = await interruptNode(run.threadId, clientHeaders);
    // Written first: an optional call skips evaluating its argument when there is no listener.
    const file = await writer.add(run);
    options.onFile?.(file);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const path = (req.url ?? "/").split("?")[0] as string;
    const runRoute = req.method === "POST" ? RUN_ROUTE.exec(path) : null;
    const joinRoute = req.method === "GET" ? JOIN_ROUTE.exec(path) : null;
    const pending = joinRoute ? background.get(decodeURIComponent(joinRoute[2] as string)) : undefined;
    let request: Record<string, unknown> = {};
    if (runRoute) {
      try {
        const parsed = JSON.parse(body.toString("utf8")) as unknown;
        if (isPlainObject(parsed)) request = parsed;
      } catch {
        // not JSON: the server refuses it; the refusal is recorded as an http ending
      }
    }
    let clientGone = false;
    // A run is "in flight" from its request on, so settled() also waits for streams still open.
    let exchangeOver: () => void = () => undefined;
    if (runRoute || pending) track(new Promise<void>((resolve) => (exchangeOver = resolve)));
    const upstream = forward(
      req,
      body,
      (answer) => {
        const headers: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
        res.writeHead(answer.statusCode ?? 502, headers);
        const isSse = String(answer.headers["content-type"] ?? "").includes("text/event-stream");
        const transcript = isSse ? new SseTranscript(now) : undefined;
        const chunks: Buffer[] = [];
        let ended = false;
        answer.on("data", (chunk: Buffer) => {
          transcript?.push(chunk);
          if (!isSse) chunks.push(chunk);
          res.write(chunk);
        });
        const done = (cut: boolean) => {
          if (ended) return;
          ended = true;
          exchangeOver();
          // A cut upstream stream is cut for the client too: the recording and the client see the same end.
          if (cut) res.destroy();
          else res.end();
          if (clientGone) return; // the client left mid-run: what it saw is not a whole run
          transcript?.end();
          const status = answer.statusCode ?? 502;
          let json: unknown;
          try {
            json = isSse ? undefined : (JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
          } catch {
            json = undefined;
          }
          const location = String(answer.headers["content-location"] ?? "");
          const fromLocation = /\/runs\/([^/?]+)/.exec(location)?.[1];
          const metadata = transcript?.events.find((e) => e.event === "metadata")?.data;
          if (runRoute) {
            const runId = (isPlainObject(metadata) && typeof metadata.run_id === "string" ? metadata.run_id : undefined) ?? fromLocation ?? (isPlainObject(json) && typeof json.run_id === "string" ? json.run_id : null);
            const run: RecordedRun = {
              kind: runRoute[2] === "/stream" ? "stream" : runRoute[2] === "/wait" ? "wait" : "background",
              threadId: runRoute[1] ? decodeURIComponent(runRoute[1]) : null,
              runId,
              request,
              status,
              events: transcript?.events ?? [],
              body: json,
              cut,
            };
            if (run.kind === "background" && status < 400 && runId) {
              run.body = undefined;
              background.set(runId, run);
            } else track(finish(run, req.headers));
          } else if (pending && joinRoute) {
            background.delete(pending.runId as string);
            if (transcript) pending.events = transcript.events;
            else pending.body = json;
            pending.cut = cut;
            track(finish(pending, req.headers));
          }
        };
        answer.on("end", () => done(false));
        answer.on("aborted", () => done(true));
        answer.on("error", () => done(true));
        answer.on("close", () => done(!answer.complete));
      },
      (err) => {
        exchangeOver();
        if (res.headersSent) res.destroy();
        else {
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ detail: `record proxy: the target did not answer (${err.message})` }));
        }
      },
    );
    res.on("close", () => {
      if (!res.writableFinished) {
        clientGone = true;
        upstream.destroy();
      }
    });
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    files: writer.files,
    settled,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await settled();
    },
  };
}
