// Captures the conformance transcripts: starts the open-source JS in-memory Agent Server (`langgraphjs dev`)
// on 127.0.0.1 with the deterministic graph in graph/, puts a transcript-recording proxy in front of it, runs
// the fixed client session (../test/support/conformance-session.ts) through the proxy with
// @langchain/langgraph-sdk, and writes what crossed the wire to transcripts/.
//
// Then, on a fresh server, the same session once more through the mock's recorder
// (`node ../dist/cli.js record --target <server> --out recordings/`), with the transcript proxy in front
// of the recorder: recordings/ gets the scenario files the recorder wrote, transcripts/ the transcript the
// client saw through it (js-inmem-server.via-recorder*.json). Loopback only; nothing is installed at run time.
//
// Usage (in this folder): npm ci && (cd .. && npm run build) && npm run capture
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const host = "127.0.0.1";
/** Whole-capture bound: a hung server must not hang the script. */
const CAPTURE_TIMEOUT_MS = 360_000;
/** How long the dev server may take to answer /ok (it type-checks the graph to extract schemas). */
const STARTUP_TIMEOUT_MS = 90_000;

if (!existsSync(join(here, "node_modules", "@langchain", "langgraph-cli"))) {
  console.error("conformance/node_modules is missing: run `npm ci` in conformance/ first.");
  process.exit(1);
}
const mockCli = join(here, "..", "dist", "cli.js");
if (!existsSync(mockCli)) {
  console.error("../dist/cli.js is missing: run `npm run build` in the project's root first (the recorder pass uses it).");
  process.exit(1);
}

const { Client } = await import("@langchain/langgraph-sdk");
const { tsImport } = await import("tsx/esm/api");
const { runConformanceSession } = await tsImport("../test/support/conformance-session.ts", import.meta.url);
const { normaliseTranscript } = await tsImport("../test/support/transcript-normalise.ts", import.meta.url);
// The same proxy the project's conformance tests put in front of the mock, so both sides are taken alike.
const { startRecordingProxy } = await tsImport("../test/support/recording-proxy.ts", import.meta.url);

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

/**
 * Starts the mock's recorder (`agent-platform-mock record`) as a child process in front of `targetUrl`,
 * writing into `outDir`; resolves with its URL once it prints `Listening on …`.
 */
function startMockRecorder(targetUrl, outDir, log) {
  rmSync(outDir, { recursive: true, force: true });
  const child = spawn(process.execPath, [mockCli, "record", "--target", targetUrl, "--out", outDir, "--port", "0", "--host", host], {
    cwd: here,
    env: serverEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
      log.push(`[recorder] ${String(chunk)}`);
      const listening = /Listening on (http:\/\/\S+)/.exec(out);
      if (listening) resolve({ child, url: listening[1] });
    });
    child.stderr.on("data", (chunk) => log.push(`[recorder] ${String(chunk)}`));
    child.once("exit", (code) => reject(new Error(`the recorder exited with code ${code} before listening`)));
  });
}

/** Stops the recorder with SIGTERM: it finishes writing every ended run, then exits. */
function stopMockRecorder(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Runs the session through a transcript proxy in front of `upstream`; returns the raw transcript. */
async function captureSession(upstream, baseUrls) {
  const proxy = await startRecordingProxy(upstream);
  try {
    // No retries: a refused call is recorded once, and the SDK's randomised backoff never runs.
    const client = new Client({ apiUrl: proxy.baseUrl, apiKey: null, callerOptions: { maxRetries: 0 } });
    await runConformanceSession({ client, baseUrl: proxy.baseUrl, step: proxy.setStep });
    await proxy.settle();
    return {
      server: Object.fromEntries(
        ["@langchain/langgraph-cli", "@langchain/langgraph-api", "@langchain/langgraph", "@langchain/core", "@langchain/langgraph-sdk"].map((name) => [name, packageVersion(name)]),
      ),
      // Every origin of the chain sits on a port chosen at run time; normalising turns each into <base-url>.
      baseUrls: [proxy.baseUrl, ...baseUrls],
      exchanges: proxy.exchanges,
    };
  } finally {
    await proxy.close();
  }
}

function writeTranscript(name, transcript) {
  const outDir = join(here, "transcripts");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(transcript, null, 2)}\n`);
  writeFileSync(join(outDir, `${name}.normalised.json`), `${JSON.stringify(normaliseTranscript(transcript), null, 2)}\n`);
  console.log(`captured ${transcript.exchanges.length} exchanges into transcripts/${name}.json`);
}

/** The dev server and the recorder of the pass under way, for the watchdog to stop. */
let currentServer = null;
let currentRecorder = null;

/** Starts a fresh dev server, runs `work(upstreamUrl, log)`, and stops the server whatever happens. */
async function withServer(work) {
  const port = await freePort();
  const upstreamUrl = `http://${host}:${port}`;
  const { child, log } = startServer(port);
  currentServer = child;
  try {
    await waitForOk(upstreamUrl, child);
    return await work(upstreamUrl, log);
  } catch (error) {
    console.error("--- dev server output ---\n" + log.join(""));
    throw error;
  } finally {
    await stopServer(child);
    currentServer = null;
    rmSync(join(here, ".langgraph_api"), { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  console.error(`capture did not finish within ${CAPTURE_TIMEOUT_MS} ms; stopping the server`);
  currentRecorder?.kill("SIGKILL");
  void (currentServer ? stopServer(currentServer) : Promise.resolve()).then(() => process.exit(2));
}, CAPTURE_TIMEOUT_MS);

try {
  // 1. The session straight against the JS server.
  await withServer(async (upstreamUrl) => writeTranscript("js-inmem-server", await captureSession(upstreamUrl, [upstreamUrl])));
  // 2. The same session on a fresh server, through the mock's recorder.
  await withServer(async (upstreamUrl, log) => {
    const recorder = await startMockRecorder(upstreamUrl, join(here, "recordings"), log);
    currentRecorder = recorder.child;
    let transcript;
    try {
      transcript = await captureSession(recorder.url, [recorder.url, upstreamUrl]);
    } finally {
      await stopMockRecorder(recorder.child);
      currentRecorder = null;
    }
    writeTranscript("js-inmem-server.via-recorder", transcript);
    console.log(log.filter((line) => line.startsWith("[recorder] Recorded")).join("").trim());
  });
} catch (error) {
  console.error("capture failed:", error);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
}
