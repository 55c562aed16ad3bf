import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// The CLI is tested as users run it: the compiled bin (npm test builds before running vitest).
const BIN = join(import.meta.dirname, "../../dist/cli.js");
const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGTERM");
});

/** Starts the CLI and resolves with the URL it prints once ready. */
function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  running.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1] as string, child });
    });
    child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${err}`)));
  });
}

function run(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 15_000 });
}

describe("agent-platform-mock (serve)", () => {
  it("on port 0 binds 127.0.0.1, prints the real bound address and serves requests", async () => {
    const { url } = await serve(["--port", "0", "--seed", "42"]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    const res = await fetch(`${url}/_mock/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("--api-key makes X-Api-Key required", async () => {
    const { url } = await serve(["--port", "0", "--no-fixtures", "--api-key", "k1"]);
    const denied = await fetch(`${url}/v2/auth/providers`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ detail: "Invalid token" });
  });

  it("--faults loads rules in force from the start; a bad rules file is refused naming file, pointer and reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-faults-"));
    const good = join(dir, "faults.yaml");
    writeFileSync(good, "- id: teapot\n  match: { route: admin.health }\n  fault: { status: { status: 418 } }\n- id: slow-info\n  match: { route: info.get }\n  fault: { status: { status: 503 } }\n");
    const { url } = await serve(["--port", "0", "--no-fixtures", "--faults", good]);
    expect((await fetch(`${url}/api/v1/info`)).status).toBe(503);
    const rules = (await (await fetch(`${url}/_mock/faults`)).json()) as { items: { id: string; fired: number }[] };
    expect(rules.items.map((r) => [r.id, r.fired])).toEqual([
      ["teapot", 0],
      ["slow-info", 1],
    ]);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ fault: { explode: {} } }));
    const refused = run(["--port", "0", "--no-fixtures", "--faults", bad]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`${bad}#/fault/explode`);
  });

  it("exits non-zero with a clear message when the port is busy", async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = run(["--port", String(port)]);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it("exits 2 on a bad flag, naming it", () => {
    const unknown = run(["--prot", "8123"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown argument: prot");
    const badPort = run(["--port", "70000"]);
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toContain("--port must be a whole number from 0 to 65535; got \"70000\"");
  });

  it("exits 2 on a value a flag cannot take, naming the flag", () => {
    for (const [args, message] of [
      [["--heartbeat-ms", "abc"], "--heartbeat-ms must be a whole number of milliseconds ≥ 0 (0 turns heartbeats off); got \"abc\""],
      [["--heartbeat-ms", "-5"], "--heartbeat-ms must be a whole number of milliseconds ≥ 0 (0 turns heartbeats off); got \"-5\""],
      [["--body-limit", "banana"], '--body-limit must be a size such as 512kb, 1mb or a number of bytes; got "banana"'],
      [["--lifecycle-step", "forever"], '--lifecycle-step must be a duration such as 500ms, 30s or 2m; got "forever"'],
      [["--seed"], "--seed needs a value"],
    ] as const) {
      const result = run(["--port", "0", ...args]);
      expect([result.status, result.stdout]).toEqual([2, ""]);
      expect(result.stderr).toContain(message);
    }
  });

  it("exits 2 on a timeout that is not a whole number of milliseconds > 0", () => {
    for (const [args, message] of [
      [["--headers-timeout-ms", "0"], "--headers-timeout-ms must be a whole number of milliseconds > 0; got 0"],
      [["--stream-stall-ms", "x"], "--stream-stall-ms must be a whole number of milliseconds > 0; got NaN"],
    ] as const) {
      const result = run(["--port", "0", ...args]);
      expect([result.status, result.stdout]).toEqual([2, ""]);
      expect(result.stderr).toContain(message);
    }
  });

  it("--clock manual: a seeded run that waits stays running, the clock where it was, until a script cancels it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-clock-"));
    const file = join(dir, "slow.json");
    writeFileSync(file, JSON.stringify({ name: "slow", events: [{ event: "values", data: { n: 1 } }, { event: "values", data: { n: 2 }, delay_ms: 60_000 }] }));
    const { url } = await serve(["--port", "0", "--seed", "3", "--clock", "manual", "--no-fixtures", "--scenarios", file]);
    const post = (path: string, body: unknown) => fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const { thread_id } = (await (await post("/threads", {})).json()) as { thread_id: string };
    const stream = await post(`/threads/${thread_id}/runs/stream`, { assistant_id: "agent" });
    const reader = stream.body!.getReader();
    let text = "";
    // Up to the first values event: the run is now in its 60 s wait.
    while (!text.includes('"n":1')) {
      // A stream that ended without it fails here rather than spinning on empty reads.
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended before "n":1: ${text}`);
      text += new TextDecoder().decode(chunk.value);
    }
    const runId = /"run_id":\s*"([0-9a-f-]{36})"/.exec(text)![1]!;
    const running = (await (await fetch(`${url}/threads/${thread_id}/runs/${runId}`)).json()) as { status: string };
    const clock = (await (await fetch(`${url}/_mock/clock`)).json()) as { now: string; auto_advance: boolean };
    expect([running.status, clock.now, clock.auto_advance]).toEqual(["running", "2026-01-15T09:00:00.000000+00:00", false]);
    expect((await post(`/threads/${thread_id}/runs/${runId}/cancel?wait=1`, {})).status).toBe(204);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(text).not.toContain('"n":2');
    expect(((await (await fetch(`${url}/threads/${thread_id}/runs/${runId}`)).json()) as { status: string }).status).toBe("interrupted");
    // Unseeded, the clock is wall time: manual would mean nothing, so it is refused.
    const refused = run(["--port", "0", "--clock", "manual"]);
    expect([refused.status, refused.stderr]).toEqual([2, expect.stringContaining("--clock manual needs --seed")]);
  });

  it("--allowed-host, --cors-origin and --allow-outbound-host reach the server", async () => {
    const { url } = await serve(["--port", "0", "--allowed-host", "mock.example", "--cors-origin", "http://localhost:5173", "--allow-outbound-host", "mcp.example.com"]);
    const ask = (host: string, origin?: string) =>
      new Promise<{ status: number; acao: string | undefined }>((resolve, reject) => {
        const req = httpRequest(`${url}/_mock/health`, { headers: { Host: host, ...(origin ? { Origin: origin } : {}) } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, acao: res.headers["access-control-allow-origin"] as string | undefined });
        });
        req.on("error", reject);
        req.end();
      });
    expect((await ask("mock.example")).status).toBe(200);
    expect((await ask("evil.example")).status).toBe(403);
    expect(await ask("mock.example", "http://localhost:5173")).toEqual({ status: 200, acao: "http://localhost:5173" });
    expect((await ask("mock.example", "http://localhost:3000")).status).toBe(403);
    const discover = await fetch(`${url}/v2/auth/providers/mcp-discover`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ provider_id: "p", name: "p", mcp_server_url: "http://169.254.169.254/mcp" }),
    });
    expect(((await discover.json()) as { detail: string }).detail).toMatch(/not allowed for outbound requests/);
  });

  it("exits 2 on a bad fixture, naming file, pointer and reason", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-cli-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ tenants: [{ id: "nope" }] }));
    const result = run(["--port", "0", "--fixtures", file]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${file}#/tenants/0/id: must match format "uuid"; got "nope"`);
  });

  it("--help lists every option with its default", () => {
    const result = run(["--help"]);
    expect(result.status).toBe(0);
    for (const flag of ["--port", "--host", "--seed", "--clock", "--fixtures", "--scenarios", "--api-key", "--tracing-port", "--lifecycle"]) {
      expect(result.stdout).toContain(flag);
    }
    expect(result.stdout).toContain("[default: 8123]");
    expect(result.stdout).toContain('[default: "127.0.0.1"]');
  });
});

describe("agent-platform-mock validate", () => {
  it("accepts the bundled fixtures", () => {
    const result = run(["validate", join(import.meta.dirname, "../../fixtures")]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^OK: \d+ files? valid/);
  });

  it("warns, with file, pointer, line and the first differing key, when a scripted values event disagrees with the reduced state; exit status stays 0", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    const file = join(dir, "drift.yaml");
    writeFileSync(
      file,
      [
        "name: drift",
        "events:",
        "  - { event: updates, data: { agent: { messages: [ { type: ai, id: a1, content: Hi } ], mood: happy } } }",
        "  - { event: values, data: { messages: [ { type: ai, id: a1, content: Hi } ], mood: sad } }",
        "",
      ].join("\n"),
    );
    const result = run(["validate", file]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^OK: 1 file valid/);
    expect(result.stderr).toBe(`1 warning:\n  ${file}#/events/1/data (line 4): scripted values disagree with the state the reducers give at this point: key "mood" (the steps before wrote "happy")\n`);
  });

  it("checks a scenario's scripted values with the reducers its graph declares in the fixtures given (an append channel), else as MessagesState", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    const fixtures = join(dir, "graphs.json");
    writeFileSync(fixtures, JSON.stringify({ graphs: [{ graph_id: "notes-bot", channels: { messages: "add_messages", notes: "append" } }] }));
    const file = join(dir, "notes.yaml");
    writeFileSync(file, ["name: notes", "graph_id: notes-bot", "events:", "  - { event: updates, data: { agent: { notes: [b] } } }", "  - { event: values, data: { notes: [a, b] } }", ""].join("\n"));
    const withGraph = run(["validate", fixtures, file]);
    expect(withGraph.stderr).toBe("");
    expect(withGraph.status).toBe(0);
    expect(withGraph.stdout).toMatch(/^OK: 2 files valid \(1 fixture, 1 scenario\)/);
    const alone = run(["validate", file]);
    expect(alone.status).toBe(0);
    expect(alone.stderr).toBe(`1 warning:\n  ${file}#/events/1/data (line 5): scripted values disagree with the state the reducers give at this point: key "notes" (the steps before wrote ["b"])\n`);
  });

  it("names file, pointer and reason for each problem and exits 1", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    const file = join(dir, "fixtures.json");
    writeFileSync(file, JSON.stringify({ tenants: [{ id: "x" }], extra: true }));
    const result = run(["validate", file]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("2 problems found:");
    expect(result.stderr).toContain(`${file}#/extra: unknown property (not in the schema)`);
    expect(result.stderr).toContain(`${file}#/tenants/0/id: must match format "uuid"; got "x"`);
  });

  it("reports every problem of every file in one run, with did-you-mean hints", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    const fixtures = join(dir, "fixtures.json");
    writeFileSync(fixtures, JSON.stringify({ tenant: [], oauth_providers: [{ uses_pkce: "yes" }] }));
    const scenario = join(dir, "scenario.json");
    writeFileSync(scenario, JSON.stringify({ $schema: "../node_modules/agent-platform-mock/schemas/scenario.json", name: "s", end: "sucess", events: [{ event: "values", data: "{{inpt.x}}" }] }));
    const list = join(dir, "list.yaml");
    writeFileSync(list, "- name: a\n  match: { input: { q: { $regexp: x } } }\n- name: b\n  turns: [{ evnts: [] }]\n");
    const result = run(["validate", fixtures, scenario, list]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("6 problems found:");
    for (const line of [
      `${fixtures}#/tenant: unknown property (not in the schema; did you mean "tenants"?)`,
      `${fixtures}#/oauth_providers/0/uses_pkce: must be boolean; got "yes"`,
      `${scenario}#/end: must be one of "success", "interrupt", "disconnect"; got "sucess"`,
      `${scenario}#/events/0/data: template {{inpt.x}}: unknown expression (did you mean {{input.x}}?)`,
      `${list}#/0/match/input/q/$regexp (line 2): unknown operator (did you mean "$regex"?)`,
      `${list}#/1/turns/0/evnts (line 4): unknown property (not in the schema; did you mean "events"?)`,
    ]) {
      expect(result.stderr).toContain(line);
    }
  });

  it("suggests the command or flag meant by an unknown one", () => {
    const command = run(["valdate", "x.json"]);
    expect(command.status).toBe(2);
    expect(command.stderr).toContain('Unknown arguments: valdate, x.json ("valdate": did you mean the command validate?)');
    const flag = run(["--lifecycle-stp", "1s"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain('"lifecycle-stp": did you mean --lifecycle-step?)');
  });

  it("names a folder called x.json among the files, with no stack trace", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    mkdirSync(join(dir, "x.json"));
    const result = run(["validate", dir]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${join(dir, "x.json")}#: is a folder, not a file`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("--help loads only the CLI's definitions; --help and validate load neither the server nor ajv's compiler (start-up speed)", async () => {
    // Preloads that record what the process loaded: every ES module file (a loader hook appends its URL
    // to a list) and, as it exits, ajv's compiler in require's cache. express and its router are bundled
    // into the CLI's chunks (scripts/bundle.mjs), so they are found by the bundler's comment naming
    // their source file in the chunk that holds them. Serving loads them: the probe can tell.
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    const list = join(dir, "loaded.txt");
    writeFileSync(join(dir, "hooks.mjs"), `import { appendFileSync } from "node:fs";\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + "\\n"); return next(url, context); }\n`);
    writeFileSync(join(dir, "probe.mjs"), `import { register } from "node:module";\nimport { createRequire } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\nconst require = createRequire(import.meta.url);\nprocess.on("exit", () => process.stderr.write("ajv: " + Object.keys(require.cache).filter((f) => /node_modules[\\\\/]ajv[\\\\/]dist[\\\\/](2020|core)/.test(f)).length + "\\n"));\n`);
    const loaded = (args: string[], options: { timeout?: number } = {}) => {
      writeFileSync(list, "");
      const result = spawnSync(process.execPath, ["--import", pathToFileURL(join(dir, "probe.mjs")).href, BIN, ...args], { encoding: "utf8", timeout: 15_000, ...options });
      const files = readFileSync(list, "utf8").split("\n").filter((url) => url.startsWith("file:"));
      const express = files.some((url) => /\/node_modules\/(express|router)\//.test(url) || /^\/\/ (.*\/)?node_modules\/express\/lib\/express\.js$/m.test(readFileSync(fileURLToPath(url), "utf8")));
      return { result, express, files };
    };
    for (const args of [["--help"], ["validate", join(import.meta.dirname, "../../fixtures"), join(import.meta.dirname, "../../scenarios")]]) {
      const { result, express, files } = loaded(args);
      expect(result.status, result.stderr).toBe(0);
      expect(files.length, args.join(" ")).toBeGreaterThan(0);
      expect(express, args.join(" ")).toBe(false);
      expect(result.stderr, args.join(" ")).toContain("ajv: 0\n");
    }
    // Help is the bin and the small modules its options' checks use: no command's code.
    const help = loaded(["--help"]);
    const chunks = help.files.map((url) => url.slice(url.lastIndexOf("/dist/") + 6).replace(/-[\w-]{8}\.js$/, ""));
    expect(chunks.filter((f) => !["cli.js", "chunks/rolldown-runtime", "chunks/code-root", "chunks/parse-arguments", "chunks/duration", "chunks/did-you-mean"].includes(f))).toEqual([]);
    // `serve` on a port already in use exits after loading the server.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { result, express } = loaded(["--port", String(port)]);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(express).toBe(true);
    } finally {
      taken.close();
    }
  });

  it("checks records as the server does at start-up, not just the file's structure", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-validate-"));
    const file = join(dir, "providers.json");
    writeFileSync(file, JSON.stringify({ oauth_providers: [{ provider_id: "gh", uses_pkce: "yes" }] }));
    const result = run(["validate", file]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`${file}#/oauth_providers/0/uses_pkce: must be boolean; got "yes"`);
  });
});
