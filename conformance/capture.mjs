// Captures the conformance transcripts: starts the open-source JS in-memory Agent Server (`langgraphjs dev`)
// on 127.0.0.1 with the deterministic graph in graph/, puts a recording proxy in front of it, runs the fixed
// client session (../test/support/conformance-session.ts) through the proxy with @langchain/langgraph-sdk,
// and writes what crossed the wire to transcripts/. Loopback only; nothing is installed at run time.
//
// Usage (in this folder): npm ci && npm run capture
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const host = "127.0.0.1";
/** Whole-capture bound: a hung server must not hang the script. */
const CAPTURE_TIMEOUT_MS = 180_000;
/** How long the dev server may take to answer /ok (it type-checks the graph to extract schemas). */
const STARTUP_TIMEOUT_MS = 90_000;

if (!existsSync(join(here, "node_modules", "@langchain", "langgraph-cli"))) {
  console.error("conformance/node_modules is missing: run `npm ci` in conformance/ first.");
  process.exit(1);
}

const { Client } = await import("@langchain/langgraph-sdk");
const { tsImport } = await import("tsx/esm/api");
const { runConformanceSession } = await tsImport("../test/support/conformance-session.ts", import.meta.url);
const { normaliseTranscript } = await tsImport("../test/support/transcript-normalise.ts", import.meta.url);

/** A port the OS says is free now; the dev server binds it a moment later. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function packageVersion(name) {
  return JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8")).version;
}

/** The dev server's environment: no tracing, no analytics, no browser, so it makes no outside call. */
function serverEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(LANGSMITH|LANGCHAIN|LANGGRAPH)_/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, LANGGRAPH_CLI_NO_ANALYTICS: "1", BROWSER: "none", LANGSMITH_TRACING: "false" };
}

function startServer(port) {
  // The server keeps its state in .langgraph_api/ of the project folder; start from nothing every time.
  rmSync(join(here, ".langgraph_api"), { recursive: true, force: true });
  const cli = join(here, "node_modules", "@langchain", "langgraph-cli", "dist", "cli", "cli.mjs");
  const log = [];
  // detached: the CLI spawns tsx, which spawns the server; killing the group stops all three.
  const child = spawn(process.execPath, [cli, "dev", "--host", host, "--port", String(port), "--no-browser", "--config", join(here, "langgraph.json")], {
    cwd: here,
    env: serverEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => log.push(String(chunk)));
  child.stderr.on("data", (chunk) => log.push(String(chunk)));
  return { child, log };
}

function stopServer(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      resolve();
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      resolve();
    }, 5_000).unref();
  });
}

async function waitForOk(baseUrl, child) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the dev server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}/ok`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the dev server did not answer ${baseUrl}/ok within ${STARTUP_TIMEOUT_MS} ms`);
}

/** Request headers worth keeping: the ones a server's behaviour depends on. */
const KEPT_REQUEST_HEADERS = ["content-type", "accept", "last-event-id", "cache-control"];

function parseBody(text, contentType) {
  if (text === "") return null;
  if (contentType.includes("text/event-stream")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function headerRecord(headers) {
  const out = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * A pass-through HTTP proxy that records every exchange byte-faithfully (bodies decoded as UTF-8).
 * Exchanges are recorded in request order; the step label is the one current when the request arrived.
 */
function startRecordingProxy(upstreamPort) {
  const exchanges = [];
  const pending = new Set();
  let step = "(before the session)";
  const server = createServer((req, res) => {
    const exchange = { step, request: null, response: null };
    exchanges.push(exchange);
    const done = new Promise((resolve) => {
      const body = [];
      req.on("data", (chunk) => body.push(chunk));
      req.on("end", () => {
        const requestText = Buffer.concat(body).toString("utf8");
        const requestHeaders = {};
        for (const name of KEPT_REQUEST_HEADERS) if (req.headers[name] !== undefined) requestHeaders[name] = String(req.headers[name]);
        exchange.request = { method: req.method, path: req.url, headers: requestHeaders, body: parseBody(requestText, req.headers["content-type"] ?? "") };
        const upstream = httpRequest(
          { host, port: upstreamPort, method: req.method, path: req.url, headers: { ...req.headers, host: `${host}:${upstreamPort}` } },
          (upstreamRes) => {
            res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.rawHeaders);
            const chunks = [];
            upstreamRes.on("data", (chunk) => {
              chunks.push(chunk);
              res.write(chunk);
            });
            upstreamRes.on("end", () => {
              res.end();
              const headers = headerRecord(upstreamRes.headers);
              exchange.response = {
                status: upstreamRes.statusCode,
                headers,
                body: parseBody(Buffer.concat(chunks).toString("utf8"), headers["content-type"] ?? ""),
              };
              resolve();
            });
          },
        );
        upstream.on("error", (error) => {
          exchange.response = { status: 0, headers: {}, body: `proxy: upstream error ${error.message}` };
          res.destroy();
          resolve();
        });
        upstream.end(Buffer.concat(body));
      });
    });
    pending.add(done);
    done.then(() => pending.delete(done));
  });
  return new Promise((resolve) => {
    server.listen(0, host, () => {
      resolve({
        baseUrl: `http://${host}:${server.address().port}`,
        exchanges,
        setStep: (name) => (step = name),
        settle: () => Promise.all([...pending]),
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

const port = await freePort();
const upstreamUrl = `http://${host}:${port}`;
const { child, log } = startServer(port);
const watchdog = setTimeout(() => {
  console.error(`capture did not finish within ${CAPTURE_TIMEOUT_MS} ms; stopping the server`);
  stopServer(child).then(() => process.exit(2));
}, CAPTURE_TIMEOUT_MS);

let proxy;
try {
  await waitForOk(upstreamUrl, child);
  proxy = await startRecordingProxy(port);
  // No retries: a refused call is recorded once, and the SDK's randomised backoff never runs.
  const client = new Client({ apiUrl: proxy.baseUrl, apiKey: null, callerOptions: { maxRetries: 0 } });
  await runConformanceSession({ client, baseUrl: proxy.baseUrl, step: proxy.setStep });
  await proxy.settle();

  const transcript = {
    server: Object.fromEntries(
      ["@langchain/langgraph-cli", "@langchain/langgraph-api", "@langchain/langgraph", "@langchain/core", "@langchain/langgraph-sdk"].map((name) => [name, packageVersion(name)]),
    ),
    // The proxy and the server each sit on a port chosen at run time; normalising turns both into <base-url>.
    baseUrls: [proxy.baseUrl, upstreamUrl],
    exchanges: proxy.exchanges,
  };
  const outDir = join(here, "transcripts");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "js-inmem-server.json"), `${JSON.stringify(transcript, null, 2)}\n`);
  const normal = normaliseTranscript(transcript);
  writeFileSync(join(outDir, "js-inmem-server.normalised.json"), `${JSON.stringify(normal, null, 2)}\n`);
  console.log(`captured ${transcript.exchanges.length} exchanges into ${outDir}`);
} catch (error) {
  console.error("capture failed:", error);
  console.error("--- dev server output ---\n" + log.join(""));
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await proxy?.close();
  await stopServer(child);
  rmSync(join(here, ".langgraph_api"), { recursive: true, force: true });
}
