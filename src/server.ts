import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp, mockOf } from "./app.js";
import { RequestGate } from "./http/request-gate.js";
import { HostCheck } from "./http/host-check.js";
import type { MockOptions } from "./options.js";
import { contextOf, type MockControl } from "./mock-control.js";
import { inspectorUrl } from "./admin/inspector-routes.js";

export interface ServerOptions extends MockOptions {
  /** Port to listen on; 0 (the default for the library) picks a free one. */
  port?: number;
  /** Interface to bind (default 127.0.0.1: the mock is not reachable from other machines). */
  host?: string;
  /** Also serve on this port, as a separate origin for the tracing service (0 picks a free one). */
  tracingPort?: number;
  /**
   * Host names (or `host:port`, `http://host…`) accepted in the Host header besides loopback names,
   * the bound address and the public URLs' hosts; `"*"` accepts any. Others get 403 (DNS rebinding).
   */
  allowedHosts?: readonly string[];
  /** Wall-clock ms a client has to send the request headers (default 10000). */
  headersTimeoutMs?: number;
  /** Wall-clock ms a client has to send the whole request, body included (default 30000; streams answering it are not limited). */
  requestTimeoutMs?: number;
}

/** Defaults of the slow-client limits (docs/security.md). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface MockServer {
  /** Origin of the control plane and agent server, e.g. "http://127.0.0.1:53121". */
  url: string;
  /** Origin of the tracing service (`{tracing_url}`); the same as `url` unless a tracing port was asked for. */
  tracingUrl: string;
  /** The browser inspector, `{url}/_mock/ui` (docs/inspector.md). */
  inspectorUrl: string;
  port: number;
  feedback: MockControl["feedback"];
  /** The runs the tracing service captured, in trace order (docs/tracing.md). */
  traces: MockControl["traces"];
  requests: MockControl["requests"];
  loadScenarios: MockControl["loadScenarios"];
  use: MockControl["use"];
  reset: MockControl["reset"];
  clock: MockControl["clock"];
  /** Resolves when expected feedback, a request or a run arrives (no polling). */
  waitFor: MockControl["waitFor"];
  control: MockControl;
  close(): Promise<void>;
  /**
   * Reads the fixture and scenario files again and serves a fresh mock built from them (state starts
   * over, as after reset()). A bad file rejects with a LoadError and the running mock is kept.
   * The CLI's `--watch` calls it.
   */
  reload(): Promise<void>;
  /** `await using mock = await startMockServer()` closes the mock when the block ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the mock on a real port and resolves once it is listening.
 *
 * @example
 * const mock = await startMockServer({ seed: 42, scenarios: ["scenarios"] });
 * const client = new Client({ apiUrl: mock.url });
 * // … run the code under test …
 * expect(mock.feedback({ key: "user_liked" })).toHaveLength(1);
 * await mock.close();
 */
export async function startMockServer(options: ServerOptions = {}): Promise<MockServer> {
  const host = options.host ?? "127.0.0.1";
  const gate = new RequestGate();
  const limits = { headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };
  const hosts = new HostCheck([host, ...(options.publicUrl ? [options.publicUrl] : []), ...(options.tracingUrl ? [options.tracingUrl] : []), ...(options.allowedHosts ?? [])]);
  const handle: RequestGate["handle"] = (req, res) => (hosts.allows(req.headers.host) ? gate.handle(req, res) : hosts.refuse(req, res));
  const main = await listen(options.port ?? 0, host, handle, limits);
  const tracing = options.tracingPort !== undefined ? await listen(options.tracingPort, host, handle, limits).catch(async (err) => {
    gate.refuse();
    await closeServer(main);
    throw err;
  }) : undefined;
  const url = options.publicUrl ?? originOf(main, host);
  const tracingUrl = options.tracingUrl ?? (tracing ? originOf(tracing, host) : url);
  let app;
  try {
    app = createApp({ ...options, publicUrl: url, tracingUrl });
  } catch (err) {
    gate.refuse();
    await Promise.all([closeServer(main), tracing && closeServer(tracing)]);
    throw err;
  }
  gate.open(app);
  let control = mockOf(app);
  const close = async () => {
    contextOf(control).close();
    // The long polls close() just answered (503: the mock closed) are written before their connections go.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([closeServer(main), tracing && closeServer(tracing)]);
  };
  const reload = async () => {
    const next = createApp({ ...options, publicUrl: url, tracingUrl });
    const previous = control;
    control = mockOf(next);
    gate.open(next);
    contextOf(previous).close();
  };
  return {
    url,
    tracingUrl,
    inspectorUrl: inspectorUrl(url),
    port: (main.address() as AddressInfo).port,
    feedback: (filter) => control.feedback(filter),
    traces: (filter) => control.traces(filter),
    requests: (filter) => control.requests(filter),
    loadScenarios: (input) => control.loadScenarios(input),
    use: (...scenarios) => control.use(...scenarios),
    reset: (scope) => control.reset(scope),
    get clock() {
      return control.clock;
    },
    get waitFor() {
      return control.waitFor;
    },
    get control() {
      return control;
    },
    close,
    reload,
    [Symbol.asyncDispose]: close,
  };
}

/** Thrown when the port cannot be bound; the message says which and why. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = "ListenError";
  }
}

/**
 * Slow clients: headersTimeout bounds the wait for the request headers and requestTimeout the wait
 * for the whole request (a client sending one byte a second holds a socket until then). Neither
 * limits a response, so long streams and waits are unaffected. Node checks them every
 * connectionsCheckingInterval, which is kept well under the limits.
 */
function listen(port: number, host: string, handler: RequestGate["handle"], limits: { headersTimeout: number; requestTimeout: number }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const headersTimeout = limits.requestTimeout > 0 ? Math.min(limits.headersTimeout, limits.requestTimeout) : limits.headersTimeout;
    const connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(Math.min(headersTimeout, limits.requestTimeout || headersTimeout) / 4)));
    const server = createServer({ headersTimeout, requestTimeout: limits.requestTimeout, connectionsCheckingInterval }, handler);
    // Streams stay open for a while; keep idle sockets from piling up between test requests.
    server.keepAliveTimeout = 5_000;
    server.once("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "EADDRINUSE" ? "the port is already in use" : err.code === "EACCES" ? "permission denied" : err.message;
      reject(new ListenError(`cannot listen on ${host}:${port}: ${why}`, err.code));
    });
    server.listen(port, host, () => resolve(server));
  });
}

function originOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  return `http://${shown}:${port}`;
}

/**
 * Resolves once the server is closed and its listening socket released. The "close" event comes
 * before the socket is (on the event loop's next close phase), and until then the socket keeps the
 * server, and through its request handler the whole mock, in memory: mocks started and closed in a
 * loop that never yields to the event loop all stayed alive, and every young-generation collection
 * copied them again (most of a later start). An immediate queued on "close" runs after that phase.
 */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => setImmediate(resolve));
    server.closeAllConnections();
  });
}
