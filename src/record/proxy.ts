import { createServer, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { isPlainObject } from "../core/json.js";
import { HostCheck, hostnameOf } from "../http/host-check.js";
import { Redactor } from "./redaction.js";
import { ScenarioWriter, type RecordedRun } from "./scenario-writer.js";
import { SseTranscript } from "./sse-transcript.js";

/** How much the recorder holds, and for how long (docs/recording.md, "Limits"). */
export interface RecorderLimits {
  /** Bytes of a run's request body held to write its file; a larger run is forwarded, not recorded. */
  requestBytes: number;
  /** Bytes of a run's answer (its stream, or its JSON) held to write its file; past it, the run is forwarded, not recorded. */
  answerBytes: number;
  /** Background runs waiting for a join at once; the oldest is dropped for a new one. */
  pendingRuns: number;
  /** Bytes of request bodies held for the background runs waiting, together; the oldest is dropped first. */
  pendingBytes: number;
  /** Milliseconds a background run waits for its join before it is dropped. */
  pendingMs: number;
}

export const RECORDER_LIMITS: Readonly<RecorderLimits> = {
  requestBytes: 4 * 1024 * 1024,
  answerBytes: 16 * 1024 * 1024,
  pendingRuns: 100,
  pendingBytes: 16 * 1024 * 1024,
  pendingMs: 10 * 60 * 1000,
};

export interface RecorderOptions {
  /** The Agent Server to record (a deployment's URL, path prefix kept). */
  target: string;
  /** Sent as `X-Api-Key` when the client sends none, to the target only; redacted from every file. */
  apiKey?: string;
  /** Folder the scenario files are written to (created when missing). */
  out: string;
  port?: number;
  host?: string;
  format?: "yaml" | "json";
  /** `Host` names accepted besides loopback names and the bound address (`*`: any), as the server's `allowedHosts`. */
  allowedHosts?: readonly string[];
  /** Browser origins accepted besides loopback ones and the recorder's own (`*`: any), as the server's `corsOrigins`. */
  corsOrigins?: readonly string[];
  limits?: Partial<RecorderLimits>;
  /** The wall clock in ms (event delays, the background-run deadline); tests pass their own. */
  now?: () => number;
  /** Told each time a file is written (the CLI prints it). */
  onFile?: (file: string) => void;
  /** Told when a run is not written (an unwritable folder, a limit, a dropped background run); the proxy keeps forwarding. */
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
/** The target's CORS answer is for the target's origin policy, not the recorder's: never passed on. */
const CORS_HEADER = /^access-control-/;
/** Request headers whose values are credentials: remembered so the server echoing them back is redacted. */
const CREDENTIAL_HEADERS = ["x-api-key", "authorization", "cookie"] as const;
const EXPOSED = "Content-Location, Location, X-Pagination-Next, X-Pagination-Total";

/**
 * The recording proxy of `agent-platform-mock record` (DESIGN §9): forwards every request to the target
 * and streams every answer back as it arrives, and meanwhile hands each run it saw to the scenario
 * writer when the run ends. It only ever talks to the target's origin: a request target must be a path
 * (`//host/…`, `http://host/…`, backslashes and dot segments, however disguised, are a 400), and the outgoing request is
 * built from the target's host and port, never from the client's URL. Like the mock it checks `Host`
 * (DNS rebinding) and `Origin` (other web pages) before anything is forwarded with the user's key, and
 * answers CORS itself. Bodies stream both ways; a run's request and answer are also held, up to the
 * limits, to write its file. Delays are measured on the wall clock on purpose: they are the real
 * server's pace, which is what a recording keeps (the mock's clock plays them back).
 */
export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/+$/, "");
  const limits: RecorderLimits = { ...RECORDER_LIMITS, ...options.limits };
  const redactor = new Redactor([options.apiKey]);
  const writer = new ScenarioWriter({ out: options.out, format: options.format ?? "yaml", redactor, source: `${target.protocol}//${target.host}${prefix}` });
  const now = options.now ?? (() => performance.now());
  const bindHost = options.host ?? "127.0.0.1";
  const hosts = new HostCheck([bindHost, ...(options.allowedHosts ?? [])]);
  const loopback = new HostCheck([]);
  const corsOrigins = (options.corsOrigins ?? []).map((o) => o.replace(/\/+$/, ""));
  /** Background runs waiting for a join through the proxy to show their events, oldest first. */
  const background = new Map<string, { run: RecordedRun; since: number; bytes: number }>();
  let pendingBytes = 0;
  const unpend = (id: string) => {
    pendingBytes -= background.get(id)?.bytes ?? 0;
    background.delete(id);
  };
  /** Runs that ended and are being written (an interrupted one first asks for its thread's state). */
  const inFlight = new Set<Promise<unknown>>();
  const report = (message: string) => options.onError?.(new Error(message));
  const track = (work: Promise<unknown>) => {
    const done = work.catch((err: unknown) => report(`could not write a run: ${(err as Error).message}`)).finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  const settled = async () => {
    while (inFlight.size) await Promise.all(inFlight);
    await writer.settled();
  };

  /** Drops background runs past their deadline, then the oldest while over the count or the bytes (`room`: what comes next). */
  const sweep = (room: { runs: number; bytes: number }) => {
    const at = now();
    for (const [id, entry] of background) {
      const late = at - entry.since > limits.pendingMs;
      if (!late && background.size + room.runs <= limits.pendingRuns && pendingBytes + room.bytes <= limits.pendingBytes) break;
      unpend(id);
      const why = late
        ? `was not joined through the recorder within ${Math.round(limits.pendingMs / 1000)} s`
        : `was dropped to keep at most ${limits.pendingRuns} background runs (${limits.pendingBytes} bytes of requests) waiting for a join`;
      report(`background run ${id} ${why}; it is not recorded`);
    }
  };

  /** A request to the target's origin: the host and port are the target's whatever the path says. */
  const toTarget = (method: string, path: string, headers: OutgoingHttpHeaders, onResponse: (answer: IncomingMessage) => void): ClientRequest => {
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    return send({ hostname: target.hostname.replace(/^\[|\]$/g, ""), port: target.port || undefined, path: `${prefix}${path}`, method, headers: { ...headers, host: target.host } }, onResponse);
  };

  /** After an interrupt, the thread's state names the node that stopped (the stream does not). Redirects are not followed. */
  const interruptNode = (threadId: string, clientHeaders: IncomingHttpHeaders): Promise<string | undefined> =>
    new Promise((resolve) => {
      const headers: OutgoingHttpHeaders = {};
      const key = typeof clientHeaders["x-api-key"] === "string" ? clientHeaders["x-api-key"] : options.apiKey;
      if (key) headers["x-api-key"] = key;
      if (typeof clientHeaders.authorization === "string") headers.authorization = clientHeaders.authorization;
      const fail = () => resolve(undefined); // the ending then uses the mock's default node
      try {
        const ask = toTarget("GET", `/threads/${encodeURIComponent(threadId)}/state`, headers, (answer) => {
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > limits.answerBytes) answer.destroy();
            else chunks.push(chunk);
          });
          answer.on("error", fail);
          answer.on("close", () => {
            if (!answer.complete || (answer.statusCode ?? 500) >= 300) return fail();
            try {
              const state = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
              const next = isPlainObject(state) && Array.isArray(state.next) ? state.next[0] : undefined;
              resolve(typeof next === "string" ? next : undefined);
            } catch {
              fail();
            }
          });
        });
        ask.on("error", fail);
        ask.end();
      } catch {
        fail();
      }
    });

  const finish = async (run: RecordedRun, clientHeaders: IncomingHttpHeaders) => {
    const interrupted = run.events.some((e) => isPlainObject(e.data) && "__interrupt__" in e.data) || (isPlainObject(run.body) && "__interrupt__" in run.body);
    if (interrupted && run.threadId !== null && run.threadId !== "." && run.threadId !== "..") run.interruptNode = await interruptNode(run.threadId, clientHeaders);
    // Written first: an optional call skips evaluating its argument when there is no listener.
    const file = await writer.add(run);
    options.onFile?.(file);
  };

  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, detail: string) => {
    const body = JSON.stringify({ detail });
    req.resume();
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" }).end(body);
  };

  /** Which origins may call the recorder: its own, loopback ones, and those configured. */
  const originAllowed = (origin: string, host: string | undefined): boolean => {
    if (corsOrigins.includes("*") || corsOrigins.includes(origin.replace(/\/+$/, ""))) return true;
    if (!URL.canParse(origin)) return false; // `null` (sandboxed frames, file: pages) included
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    return (host !== undefined && url.host === host.toLowerCase()) || loopback.allows(url.host);
  };

  /** The checks before anything is forwarded with the user's key; an answer when the request is refused. */
  const check = (req: IncomingMessage): { status: number; detail: string } | undefined => {
    const url = req.url ?? "";
    if (!isPlainPath(url)) {
      return { status: 400, detail: `record proxy: only paths on the target are forwarded (a request target starting with one "/", no "\\" or "#", and no dot segment or "/" or "\\" once percent-decoded); got ${JSON.stringify(url.slice(0, 100))}` };
    }
    if (!hosts.allows(req.headers.host)) {
      const name = hostnameOf(req.headers.host ?? "");
      return { status: 403, detail: `Host '${name}' is not allowed; start the recorder with --allowed-host ${name} to serve it` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, req.headers.host)) {
      return { status: 403, detail: `Origin '${origin}' is not allowed; start the recorder with --cors-origin ${origin} to allow it` };
    }
    // A cross-site request a page sends without CORS (an <img>, a form, a link) carries no Origin on GET.
    if (origin === undefined && req.headers["sec-fetch-site"] === "cross-site") return { status: 403, detail: "record proxy: cross-site requests are not forwarded" };
    return undefined;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    sweep({ runs: 0, bytes: 0 });
    const refusal = check(req);
    if (refusal) return refuse(req, res, refusal.status, refusal.detail);
    const url = req.url as string;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      res.setHeader("access-control-expose-headers", EXPOSED);
      if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
        // The preflight is the recorder's to answer: the target never sees it.
        res.setHeader("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
        res.setHeader("access-control-allow-headers", req.headers["access-control-request-headers"] ?? "*");
        res.setHeader("access-control-max-age", "600");
        req.resume();
        res.writeHead(200).end();
        return;
      }
    }
    for (const name of CREDENTIAL_HEADERS) rememberCredential(redactor, name, req.headers[name]);

    const path = url.split("?")[0] as string;
    const runRoute = req.method === "POST" ? RUN_ROUTE.exec(path) : null;
    const joinRoute = req.method === "GET" ? JOIN_ROUTE.exec(path) : null;
    const pendingId = joinRoute ? safeDecode(joinRoute[2] as string) : undefined;
    const pending = pendingId !== undefined ? background.get(pendingId)?.run : undefined;
    const recorded = runRoute !== null || pending !== undefined;

    // The run's request body is held (up to the limit) to write its file, while it streams on.
    let held: Buffer[] | undefined = runRoute ? [] : undefined;
    let heldBytes = 0;
    let tooLarge: string | undefined;
    if (held) {
      req.on("data", (chunk: Buffer) => {
        if (!held) return;
        heldBytes += chunk.length;
        if (heldBytes > limits.requestBytes) {
          held = undefined;
          tooLarge = `its request body is over ${limits.requestBytes} bytes`;
        } else held.push(chunk);
      });
    }
    const requestJson = (): Record<string, unknown> => {
      if (!held || !req.complete) return {};
      try {
        const parsed = JSON.parse(Buffer.concat(held).toString("utf8")) as unknown;
        return isPlainObject(parsed) ? parsed : {};
      } catch {
        return {}; // not JSON: the server refuses it; the refusal is recorded as an http ending
      }
    };

    let clientGone = false;
    // A run is "in flight" from its request on, so settled() also waits for streams still open.
    let exchangeOver: () => void = () => undefined;
    if (recorded) track(new Promise<void>((resolve) => (exchangeOver = resolve)));

    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    if (options.apiKey && headers["x-api-key"] === undefined) headers["x-api-key"] = options.apiKey;

    const onAnswer = (answer: IncomingMessage) => {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && !CORS_HEADER.test(name) && value !== undefined) out[name] = value;
      if (origin !== undefined) out.vary = out.vary === undefined ? "Origin" : `${String(out.vary)}, Origin`;
      try {
        res.writeHead(answer.statusCode ?? 502, out);
      } catch (err) {
        // A header the target sent that this side cannot write: the target's answer is not HTTP we can pass on.
        answer.destroy();
        exchangeOver();
        res.removeHeader("access-control-allow-origin");
        return refuse(req, res, 502, `record proxy: the target's answer cannot be passed on (${(err as Error).message})`);
      }
      const isSse = String(answer.headers["content-type"] ?? "").includes("text/event-stream");
      let transcript = recorded && isSse ? new SseTranscript(now) : undefined;
      let chunks: Buffer[] | undefined = recorded && !isSse ? [] : undefined;
      let answerBytes = 0;
      let ended = false;
      answer.on("data", (chunk: Buffer) => {
        if (recorded && !tooLarge) {
          answerBytes += chunk.length;
          if (answerBytes > limits.answerBytes) {
            tooLarge = `its answer is over ${limits.answerBytes} bytes`;
            transcript = undefined;
            chunks = undefined;
          } else {
            transcript?.push(chunk);
            chunks?.push(chunk);
          }
        }
        // Backpressure: a client that reads slowly slows the target down instead of filling memory.
        if (!res.write(chunk)) answer.pause();
      });
      res.on("drain", () => answer.resume());
      const done = (cut: boolean) => {
        if (ended) return;
        ended = true;
        exchangeOver();
        // A cut upstream stream is cut for the client too: the recording and the client see the same end.
        if (cut) res.destroy();
        else res.end();
        if (clientGone || !recorded) return; // the client left mid-run: what it saw is not a whole run
        if (tooLarge) {
          if (pending) unpend(pending.runId as string);
          return report(`${req.method} ${path} was forwarded but not recorded: ${tooLarge}`);
        }
        transcript?.end();
        const status = answer.statusCode ?? 502;
        let json: unknown;
        try {
          json = chunks ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown) : undefined;
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
            threadId: runRoute[1] ? (safeDecode(runRoute[1]) ?? runRoute[1]) : null,
            runId,
            request: requestJson(),
            status,
            events: transcript?.events ?? [],
            body: json,
            cut,
          };
          if (run.kind === "background" && status < 400 && runId) {
            run.body = undefined;
            unpend(runId);
            sweep({ runs: 1, bytes: heldBytes });
            background.set(runId, { run, since: now(), bytes: heldBytes });
            pendingBytes += heldBytes;
          } else track(finish(run, req.headers));
        } else if (pending) {
          unpend(pending.runId as string);
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
    };

    let upstream: ClientRequest;
    try {
      upstream = toTarget(req.method ?? "GET", url, headers, onAnswer);
    } catch (err) {
      // A path or header value Node will not send (it checks what it writes more strictly than what it reads).
      exchangeOver();
      return refuse(req, res, 400, `record proxy: cannot forward this request (${(err as Error).message})`);
    }
    upstream.on("error", (err) => {
      exchangeOver();
      if (res.headersSent) res.destroy();
      else refuse(req, res, 502, `record proxy: the target did not answer (${err.message})`);
    });
    // Streamed: pipe() pauses the client while the target's side is full.
    req.pipe(upstream);
    res.on("close", () => {
      if (!res.writableFinished) {
        clientGone = true;
        upstream.destroy();
      }
    });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, bindHost, () => resolve());
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

/**
 * A request target the recorder may append to the target's path prefix: one leading `/`, no `\` and
 * no `#` (no request target has a fragment; parsers cut the path there), and a path whose segments,
 * once percent-decoded, are no dot segment and hold no separator. A segment is a dot segment when what
 * comes before its first `;` (a path parameter to Tomcat and Jetty), `?` or `#` is `.` or `..`:
 * `..;/`, `%2e%2e`, `..%3f` all read as `..` to some server on the way, and WHATWG URL parsing turns
 * `/prefix/..#/x` into `/`. An encoded `/` or `\` (`..%2f`) is a separator to servers that decode
 * before they split (nginx). `..foo`, `...` and `v1.2` are names for every parser and pass. The query
 * is not checked: no parser resolves dot segments there.
 */
function isPlainPath(url: string): boolean {
  if (!url.startsWith("/") || url.startsWith("//") || url.includes("\\") || url.includes("#")) return false;
  return (url.split("?")[0] as string).split("/").every((raw) => {
    const segment = decodeAscii(raw);
    const name = segment.split(/[;?#]/)[0];
    return name !== "." && name !== ".." && !/[/\\]/.test(segment);
  });
}

/**
 * Decodes every `%XX` escape of an ASCII character until none is left, so `%252e` is `.` as it is after
 * a chain of servers that each decode once. One pass, left to right: a decoded character that ends a
 * new escape (`%2` then `%65`) is decoded in turn. Other bytes stay as sent: only ASCII is checked.
 */
function decodeAscii(text: string): string {
  const out: string[] = [];
  for (const char of text) {
    out.push(char);
    while (out.length >= 3 && out[out.length - 3] === "%") {
      const hex = out.slice(-2).join("");
      if (!/^[0-7][0-9a-f]$/i.test(hex)) break;
      out.splice(-3, 3, String.fromCharCode(parseInt(hex, 16)));
    }
  }
  return out.join("");
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Cookie values shorter than this are taken for preferences (`consent=1`, `lang=en`), not credentials:
 * remembered, they would blank out every `1` and `en` standing alone. Session cookies are long.
 */
const COOKIE_SECRET_LENGTH = 8;

/**
 * Keeps a credential header's value for the redactor: `X-Api-Key` whole, `Authorization` whole and the
 * token after its scheme (`Bearer x`), whatever their length; `Cookie` whole and each value, when long.
 */
function rememberCredential(redactor: Redactor, name: (typeof CREDENTIAL_HEADERS)[number], value: string | string[] | undefined): void {
  for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
    if (name !== "cookie") {
      redactor.remember(item);
      if (name === "authorization") redactor.remember(/^\s*\S+\s+(\S+)\s*$/.exec(item)?.[1]);
      continue;
    }
    for (const cookie of [item, ...item.split(";").map((part) => part.split("=").slice(1).join("=").trim())]) {
      if (cookie.length >= COOKIE_SECRET_LENGTH) redactor.remember(cookie);
    }
  }
}
