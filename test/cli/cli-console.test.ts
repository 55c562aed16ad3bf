import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What a person (or a tool) sees on the console. Spawning node is slow, so one served process is
// shared by the banner, request-log and --watch tests, and each waits for output lines, never a time.
const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "dist/cli.js");

/** Collects a process's output and resolves waits when a line matching a pattern arrives. */
class Output {
  text = "";
  private waiters: { pattern: RegExp; from: number; resolve: (m: RegExpExecArray) => void }[] = [];
  constructor(stream: NodeJS.ReadableStream) {
    stream.on("data", (chunk: Buffer) => {
      this.text += chunk.toString();
      for (const w of [...this.waiters]) {
        const m = w.pattern.exec(this.text.slice(w.from));
        if (m) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    });
  }
  /** The next match of `pattern` in output after the current end (or anywhere, with `seen`). */
  next(pattern: RegExp, seen = false): Promise<RegExpExecArray> {
    const from = seen ? 0 : this.text.length;
    const m = pattern.exec(this.text.slice(from));
    if (m) return Promise.resolve(m);
    return new Promise((resolve) => this.waiters.push({ pattern, from, resolve }));
  }
}

let dir: string;
let child: ChildProcess;
let out: Output;
let err: Output;
let url: string;

const scenario = (name: string, n: number) => JSON.stringify({ name, events: [{ event: "values", data: { n } }] });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "apm-console-"));
  writeFileSync(join(dir, "fixtures.json"), "{}");
  writeFileSync(join(dir, "one.json"), scenario("one", 1));
  child = spawn(process.execPath, [BIN, "--port", "0", "--seed", "7", "--fixtures", join(dir, "fixtures.json"), "--scenarios", join(dir, "one.json"), "--watch"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined },
  });
  out = new Output(child.stdout!);
  err = new Output(child.stderr!);
  url = (await out.next(/Listening on (http:\/\/\S+)/, true))[1]!;
  await out.next(/Stop with Ctrl\+C/, true);
});

afterAll(() => {
  child?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = () => fetch(`${url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "agent" }) }).then((r) => r.json());

describe("the serve console", () => {
  it("prints Listening first, then a banner of what was loaded and where each surface is", () => {
    const lines = out.text.split("\n");
    expect(lines[0]).toBe(`Listening on ${url}`);
    expect(out.text).toContain(`  tracing         ${url}/api/v1/info\n`);
    expect(out.text).toContain(`  mock admin      ${url}/_mock/openapi.json  (`);
    expect(out.text).toContain(`  OpenAPI         ${url}/openapi.json\n`);
    expect(out.text).toMatch(/^Fixtures {3}.*fixtures\.json: 0 deployments, 0 OAuth providers, 0 integrations$/m);
    expect(out.text).toContain("Scenarios  1: one");
    expect(out.text).toContain("Seed       7");
    expect(out.text).toMatch(/^Clock {6}fixed \(seeded\): a wait jumps it ahead by itself; lifecycle immediate$/m);
    expect(out.text).toMatch(/^Stop with Ctrl\+C \(or SIGTERM\)/m);
  });

  it("every URL and path the banner names answers a GET with 200", async () => {
    // The banner proper: after the Listening line (the origin, for tools) and before the first request's line.
    const shown = out.text.slice(0, out.text.indexOf("Stop with Ctrl+C")).split("\n").slice(1).filter((line) => !line.startsWith("Fixtures"));
    const urls = shown.flatMap((line) => [
      ...[...line.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]),
      // A path in the banner's words (`(also /v2/auth/providers)`) is on the mock's own origin.
      ...[...line.matchAll(/(?<=[\s(])\/[\w./-]*\w/g)].map((m) => `${url}${m[0]}`),
    ]);
    expect(urls.length).toBeGreaterThanOrEqual(8);
    const statuses = await Promise.all(urls.map(async (u) => [u, (await fetch(u)).status] as const));
    expect(statuses.filter(([, status]) => status !== 200)).toEqual([]);
  });

  it("logs one line per request: method, path, status, duration and the scenario that answered", async () => {
    const line = out.next(/^POST {3}\/runs\/wait 200 [\d.]+ms scenario=one$/m);
    expect(await run()).toEqual({ n: 1 });
    await line;
    const notFound = out.next(/^GET {4}\/nope\?x=1 404 [\d.]+ms$/m);
    await fetch(`${url}/nope?x=1`);
    await notFound;
    // /_mock requests only at --log-level debug: the next line logged is the next non-admin request.
    await fetch(`${url}/_mock/health`);
    const ok = out.next(/^([A-Z]+ +\/\S*) /m);
    await fetch(`${url}/ok`);
    expect((await ok)[1]).toBe("GET    /ok");
  });

  it("a streamed run's line names its scenario, and the fault rule that hit it", async () => {
    const stream = (path: string) => fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "agent" }) }).then((r) => r.text());
    const plain = out.next(/^POST {3}\/runs\/stream 200 [\d.]+ms scenario=one$/m);
    expect(await stream("/runs/stream")).toContain('"n":1');
    await plain;
    const rule = { id: "boom", match: { path: "/runs/stream" }, fault: { error_event: { after_events: 1 } } };
    expect((await fetch(`${url}/_mock/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(rule) })).status).toBe(201);
    try {
      const faulted = out.next(/^POST {3}\/runs\/stream\?x=1 200 [\d.]+ms scenario=one fault=boom \(error_event\)$/m);
      expect(await stream("/runs/stream?x=1")).toContain("event: error");
      await faulted;
    } finally {
      await fetch(`${url}/_mock/faults/boom`, { method: "DELETE" });
    }
  });

  it("--watch reloads a changed file and says what changed; a bad file keeps the previous set", async () => {
    const reloaded = out.next(/^Reloaded after a change to .*one\.json: \d+ scenarios.*$/m);
    writeFileSync(join(dir, "one.json"), JSON.stringify([JSON.parse(scenario("one", 2)), JSON.parse(scenario("two", 3))]));
    expect((await reloaded)[0]).toContain("added two");
    expect(await run()).toEqual({ n: 2 });

    const refused = err.next(/not reloaded, the previous files stay in use:\n.*one\.json#\/events\/0\/event.*/);
    writeFileSync(join(dir, "one.json"), JSON.stringify({ name: "one", events: [{ event: "nope", data: {} }] }));
    await refused;
    expect(await run()).toEqual({ n: 2 });
  });
});

describe("stopping", () => {
  it("--exit-with-parent: the mock exits when the process between it and its caller dies", async () => {
    // `; :` keeps sh alive as the mock's parent (sh would otherwise exec node in its place).
    const sh = spawn("sh", ["-c", `"${process.execPath}" "${BIN}" --port 0 --quiet --exit-with-parent --fixtures "${join(dir, "fixtures.json")}"; :`], { stdio: ["ignore", "pipe", "inherit"] });
    const shOut = new Output(sh.stdout!);
    const mockUrl = (await shOut.next(/Listening on (http:\/\/\S+)/, true))[1]!;
    expect((await fetch(`${mockUrl}/ok`)).status).toBe(200);
    // The pipe closes when its last writer, the mock, has exited.
    const closed = new Promise((resolve) => sh.stdout!.on("close", resolve));
    sh.kill("SIGKILL");
    await closed;
    await expect(fetch(`${mockUrl}/ok`)).rejects.toThrow();
  });

  it("record --exit-with-parent: the recorder exits when the process between it and its caller dies", async () => {
    const sh = spawn("sh", ["-c", `"${process.execPath}" "${BIN}" record --target http://127.0.0.1:9 --out "${join(dir, "recorded")}" --port 0 --exit-with-parent; :`], { stdio: ["ignore", "pipe", "inherit"] });
    const shOut = new Output(sh.stdout!);
    const recorderUrl = (await shOut.next(/Listening on (http:\/\/\S+)/, true))[1]!;
    // The target is a closed port: the proxy answers, with the gateway error.
    expect((await fetch(`${recorderUrl}/ok`)).status).toBe(502);
    const closed = new Promise((resolve) => sh.stdout!.on("close", resolve));
    sh.kill("SIGKILL");
    await closed;
    await expect(fetch(`${recorderUrl}/ok`)).rejects.toThrow();
  });

  it("the Python recipe (docs/examples/run_mock.py) starts, uses and stops the mock with the standard library", async () => {
    // A project with the package installed: the recipe starts node_modules/.bin/agent-platform-mock,
    // here a script that execs the built CLI (one process, as npm's link to it is).
    const project = join(dir, "python-project");
    mkdirSync(join(project, "node_modules/.bin"), { recursive: true });
    writeFileSync(join(project, "node_modules/.bin/agent-platform-mock"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const py = spawn("python3", [join(ROOT, "docs/examples/run_mock.py")], { cwd: project, env: { ...process.env, MOCK_COMMAND: undefined }, stdio: ["ignore", "pipe", "pipe"] });
    const pyOut = new Output(py.stdout!);
    const pyErr = new Output(py.stderr!);
    const code = await new Promise((resolve) => py.on("close", resolve));
    expect({ code, stderr: pyErr.text }).toEqual({ code: 0, stderr: "" });
    expect(pyOut.text).toBe("ok: True\nrun answered: 200\nrequests seen: 1\nexit code: 0\n");
  });
});
