import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRecorder, type Recorder } from "../../src/record/proxy.js";
import { listener, RUN_ID, sse, type Hit, type Listener } from "./helpers.js";

/**
 * Issue 28: a bounded fuzz over the recorder's request targets, methods, headers and run bodies.
 * Whatever is sent: no 5xx, nothing reaches another host (a second loopback listener) or leaves the
 * target's path prefix, and no secret sent (the configured key, keys in headers, values under
 * credential keys, credential-shaped text) lands in a recorded file — the target echoes all of it.
 */

const KEY = "lsv2_pt_fuzzkey_5e0c1d2b3a4f56789abcdef012345";
const SHAPED = [
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6In0.c2lnbmF0dXJlX2Zvcl9mdXp6",
  "AKIAZZZZZZZZZZZZZZZZ",
  "ghp_fuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzz0123",
  "AIzaFuzzFuzzFuzzFuzzFuzzFuzzFuzzFuzz123",
  "sk-proj-fuzzfuzzfuzzfuzz",
];
const KEY_STYLES = ["apiKey", "api_key", "API-KEY", "openaiApiKey", "OPENAI_API_KEY", "aws_secret_access_key", "private_key", "privateKey", "clientSecret", "password", "Authorization", "x-api-key", "refresh_token", "credentials", "Secret"];

/** One raw HTTP/1.1 exchange: the request line and headers written as given; the status read back (0: none). */
function raw(port: number, text: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(Buffer.concat(chunks).toString("latin1"))?.[1] ?? 0)));
    // Written, not ended: Node's server drops a request whose client half-closes before the answer.
    socket.write(text);
  });
}

describe("recorder fuzz", () => {
  let target: Listener;
  let bareTarget: Listener;
  let other: Listener;
  let recorder: Recorder;
  let bare: Recorder;
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-fuzz-"));
    other = await listener();
    const echoing = (hit: Hit, res: ServerResponse) => {
      let input: unknown;
      try {
        input = (JSON.parse(hit.body) as { input?: unknown }).input;
      } catch {
        input = hit.body;
      }
      // A careless server: every header it got, and the input, come back in the answer.
      const echo = { input, headers: hit.headers };
      const path = hit.url.split("?")[0] as string;
      if (path.endsWith("/runs/stream") || /\/runs\/[^/]+\/stream$/.test(path)) return sse(res, RUN_ID, [{ event: "values", data: echo }, { event: "error", data: { error: `E ${String(hit.headers["x-api-key"])}`, message: String(hit.headers.authorization) } }]);
      if (/\/runs$/.test(path)) return res.writeHead(200, { "content-type": "application/json", "content-location": `/runs/${RUN_ID}` }).end(JSON.stringify({ run_id: RUN_ID }));
      res.writeHead(hit.method === "POST" ? 200 : 404, { "content-type": "application/json", "access-control-allow-origin": "*" }).end(JSON.stringify(echo));
    };
    target = await listener(echoing);
    bareTarget = await listener(echoing);
    // One target with a path prefix (a deployment's URL), one without (where `//host` would be a host).
    recorder = await startRecorder({ target: `${target.url}/prefix`, apiKey: KEY, out, port: 0 });
    bare = await startRecorder({ target: bareTarget.url, apiKey: KEY, out: join(out, "bare"), port: 0 });
  });
  afterAll(async () => {
    await recorder?.close();
    await bare?.close();
    await target?.close();
    await bareTarget?.close();
    await other?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it("answers every request below 500, reaches only the target under its prefix, and writes no secret", async () => {
    const ports = [Number(new URL(recorder.url).port), Number(new URL(bare.url).port)] as const;
    const port = ports[0];
    const elsewhere = `127.0.0.1:${other.port}`;
    const secrets = new Set<string>([KEY, ...SHAPED]);
    const route = fc.constantFrom("/threads/t1/runs/stream", "/runs/stream", "/runs/wait", "/threads/t2/runs", `/threads/t2/runs/${RUN_ID}/join`, `/threads/t2/runs/${RUN_ID}/stream`, "/threads", "/assistants/search", "/info");
    const segment = fc.oneof(
      fc.constantFrom("threads", "runs", "stream", "wait", "join", "t1", RUN_ID, "..", ".", "%2e", "%2E%2e", ".%2e", "", "\\", `@${elsewhere}`, elsewhere, `?next=//${elsewhere}`, "#frag", "%00", "%ZZ", "%2f%2f", "%5c"),
      fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,8}$/),
    );
    const path = fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join("/")}`);
    // Half the requests are well formed (so runs are recorded and checked for secrets), half hostile.
    const requestTarget = fc.oneof(
      { arbitrary: route, weight: 4 },
      { arbitrary: fc.tuple(route, fc.constantFrom("", "?x=1", `?to=//${elsewhere}`, "?a=%00")).map(([r, q]) => `${r}${q}`), weight: 1 },
      { arbitrary: fc.tuple(fc.constantFrom("", "", "/", "//", "///", `http://${elsewhere}`, `https://${elsewhere}`, `HTTP://${elsewhere}`, "\\", "/\\", "\\\\", `//${elsewhere}`), path).map(([lead, rest]) => `${lead}${rest}`), weight: 3 },
      { arbitrary: fc.constantFrom("*", elsewhere, `//${elsewhere}`, `/\\${elsewhere}/x`, "/..", `http://127.0.0.1:${port}/runs/stream`), weight: 1 },
      { arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,24}$/), weight: 1 },
    );
    const token = fc.stringMatching(/^[A-Za-z0-9]{20,28}$/);
    const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,24}$/).map((v) => v.trim());
    const sometimes = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: bad, weight: 1 });
    const headers = fc.record(
      {
        host: sometimes(fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, "[::1]"), fc.oneof(fc.constantFrom("evil.example", elsewhere, ""), headerValue)),
        origin: sometimes(fc.constantFrom("http://localhost:5173", `http://127.0.0.1:${port}`), fc.oneof(fc.constantFrom("https://evil.example", "null", `http://${elsewhere}x.example`), headerValue)),
        "sec-fetch-site": fc.constantFrom("cross-site", "same-origin", "none"),
        "x-api-key": token.map((t) => `xk-${t}`),
        authorization: fc.tuple(fc.constantFrom("Bearer", "Basic", "Token"), token).map(([scheme, t]) => `${scheme} ${t}`),
        "x-extra": headerValue,
      },
      { requiredKeys: [] },
    );
    const body = fc.record({
      keyStyle: fc.constantFrom(...KEY_STYLES),
      nested: fc.boolean(),
      secret: token.map((t) => `bv-${t}`),
      quote: fc.constantFrom("header", "shaped", "none"),
      shaped: fc.constantFrom(...SHAPED),
      words: fc.stringMatching(/^[a-z ]{0,20}$/),
    });
    const method = fc.constantFrom("GET", "GET", "POST", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD");

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ports), method, requestTarget, headers, body, async (to, verb, url, sent, run) => {
        const headerSecret = sent["x-api-key"] ?? sent.authorization?.split(" ")[1];
        for (const s of [sent["x-api-key"], sent.authorization?.split(" ")[1]]) if (s) secrets.add(s);
        secrets.add(run.secret);
        const quoted = run.quote === "header" && headerSecret ? headerSecret : run.quote === "shaped" ? run.shaped : "";
        const payload = JSON.stringify({
          assistant_id: "agent",
          input: { messages: [{ role: "user", content: `${run.words} ${quoted}`.trim() }], [run.keyStyle]: run.nested ? { inner: [run.secret] } : run.secret },
        });
        const lines = [`${verb} ${url} HTTP/1.1`];
        for (const [name, value] of Object.entries(sent)) if (value !== undefined) lines.push(`${name}: ${value}`);
        lines.push("content-type: application/json", `content-length: ${Buffer.byteLength(payload)}`, "connection: close");
        const status = await raw(to, `${lines.join("\r\n")}\r\n\r\n${payload}`);
        expect(status, `${verb} ${url} ${JSON.stringify(sent)}`).toBeGreaterThanOrEqual(200);
        expect(status, `${verb} ${url} ${JSON.stringify(sent)}`).toBeLessThan(500);
      }),
      { numRuns: 250, seed: 20261128, interruptAfterTimeLimit: 20_000 },
    );
    await recorder.settled();

    expect(other.hits.length, "other host contacted").toBe(0);
    expect(target.hits.length).toBeGreaterThan(20);
    for (const hit of target.hits) {
      expect(hit.url).toMatch(/^\/prefix(\/|\?|$)/);
      expect(hit.url.split("?")[0]).not.toMatch(/(^|\/)(\.|%2e){1,2}(\/|$)/i);
      expect(hit.headers.host).toBe(`127.0.0.1:${target.port}`);
    }
    expect(bareTarget.hits.length).toBeGreaterThan(20);
    for (const hit of bareTarget.hits) {
      expect(hit.url).toMatch(/^\/(?!\/)/);
      expect(hit.headers.host).toBe(`127.0.0.1:${bareTarget.port}`);
    }
    const files = [...readdirSync(out).filter((f) => f !== "bare"), ...readdirSync(join(out, "bare")).map((f) => join("bare", f))];
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(join(out, file), "utf8");
      for (const secret of secrets) expect(text, `${file}: ${secret}`).not.toContain(secret);
      for (const secret of secrets) expect(file).not.toContain(secret.toLowerCase().slice(0, 16));
    }
  }, 60_000);
});
