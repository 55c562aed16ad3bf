import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
    expect(out.text).toContain(`  tracing         ${url}/api/v1`);
    expect(out.text).toContain(`  mock admin      ${url}/_mock`);
    expect(out.text).toContain(`  OpenAPI         ${url}/openapi.json`);
    expect(out.text).toMatch(/^Fixtures {3}.*fixtures\.json: 0 deployments, 0 OAuth providers, 0 integrations$/m);
    expect(out.text).toContain("Scenarios  1: one");
    expect(out.text).toContain("Seed       7");
    expect(out.text).toMatch(/^Clock {6}fixed .*; lifecycle immediate$/m);
    expect(out.text).toMatch(/^Stop with Ctrl\+C \(or SIGTERM\)/m);
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

  it("the Python recipe (docs/examples/run_mock.py) starts, uses and stops the mock with the standard library", async () => {
    const py = spawn("python3", [join(ROOT, "docs/examples/run_mock.py")], { env: { ...process.env, MOCK_COMMAND: `"${process.execPath}" "${BIN}"` }, stdio: ["ignore", "pipe", "pipe"] });
    const pyOut = new Output(py.stdout!);
    const pyErr = new Output(py.stderr!);
    const code = await new Promise((resolve) => py.on("close", resolve));
    expect({ code, stderr: pyErr.text }).toEqual({ code: 0, stderr: "" });
    expect(pyOut.text).toBe("ok: True\nrun answered: 200\nrequests seen: 1\nexit code: 0\n");
  });
});
