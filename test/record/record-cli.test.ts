import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Issue 28, defect 8: the built `record` command exits with its parent, and its memory stays flat
 * while large bodies pass through it both ways (the peak resident size of the process, from /proc).
 * Spawns dist/cli.js, as users run it (`npm test` builds dist first).
 */

const ROOT = new URL("../..", import.meta.url).pathname;
const BIN = join(ROOT, "dist/cli.js");
const MB = 1024 * 1024;
/** Each way: large next to the recorder's own footprint and its 4 MB hold, small enough to pass in seconds. */
const SIZE_MB = 128;

/** Resolves with the recorder's URL from its "Listening on" line. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const url = /Listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (url) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`the recorder exited (${code}) before listening: ${text}`)));
  });
}

/** The peak resident set size of a process so far, in bytes (Linux). */
function peakRss(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;
}

describe("agent-platform-mock record (built CLI)", () => {
  let target: Server;
  let targetUrl: string;
  let out: string;
  /** The target tells when its writes block and drain, so a test client can read only while they block. */
  const pace = new EventEmitter();
  let received = 0;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "apm-record-cli-"));
    target = createServer((req, res) => {
      if (req.url === "/big") {
        // SIZE_MB, written as fast as the proxy takes it.
        let left = SIZE_MB;
        const chunk = Buffer.alloc(MB, 120);
        res.writeHead(200, { "content-type": "application/octet-stream" });
        const more = () => {
          while (left > 0) {
            left -= 1;
            if (!res.write(chunk)) {
              pace.emit("blocked");
              res.once("drain", () => {
                pace.emit("drained");
                more();
              });
              return;
            }
          }
          // Written whole: the client reads the rest freely.
          res.end(() => pace.emit("blocked"));
        };
        return more();
      }
      received = 0;
      req.on("data", (c: Buffer) => (received += c.length));
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ received })));
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    target?.closeAllConnections();
    await new Promise<void>((resolve) => target?.close(() => resolve()));
    rmSync(out, { recursive: true, force: true });
  });

  it("--exit-with-parent: the recorder exits when the process that started it dies", async () => {
    // `; :` keeps sh alive as the recorder's parent (sh would otherwise exec node in its place).
    const sh = spawn("sh", ["-c", `"${process.execPath}" "${BIN}" record --target ${targetUrl} --out "${out}" --port 0 --exit-with-parent; :`], { stdio: ["ignore", "pipe", "inherit"] });
    const url = await listening(sh);
    expect((await fetch(`${url}/ok`, { method: "POST", body: "x" })).status).toBe(200);
    // The pipe closes when its last writer, the recorder, has exited.
    const closed = new Promise((resolve) => sh.stdout!.on("close", resolve));
    sh.kill("SIGKILL");
    await closed;
    await expect(fetch(`${url}/ok`)).rejects.toThrow();
  }, 60_000);

  it(`streams a ${SIZE_MB} MB request and a ${SIZE_MB} MB answer with its memory flat`, async () => {
    const child = spawn(process.execPath, [BIN, "record", "--target", targetUrl, "--out", out, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    try {
      const url = new URL(await listening(child));
      const before = peakRss(child.pid!);

      // Up: a run's request (held for its file only up to the documented 4 MB), sent as fast as it is taken.
      const upload = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ hostname: url.hostname, port: url.port, path: "/runs/wait", method: "POST", headers: { "content-type": "application/json" } }, (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        const chunk = Buffer.alloc(MB, 97);
        let left = SIZE_MB;
        const more = () => {
          while (left > 0) {
            left -= 1;
            if (!req.write(chunk)) return void req.once("drain", more);
          }
          req.end();
        };
        more();
      });
      expect(upload).toEqual({ status: 200, body: JSON.stringify({ received: SIZE_MB * MB }) });

      // Down: the client reads only while the target's writes are blocked, so it is always the slower
      // side; a proxy that did not pass the back-pressure on would hold the difference.
      const downloaded = await new Promise<number>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname);
        let bytes = 0;
        const go = () => socket.resume();
        const stop = () => socket.pause();
        pace.on("blocked", go);
        pace.on("drained", stop);
        socket.on("data", (c: Buffer) => (bytes += c.length));
        socket.on("error", reject);
        socket.on("close", () => {
          pace.off("blocked", go);
          pace.off("drained", stop);
          resolve(bytes);
        });
        socket.write(`GET /big HTTP/1.1\r\nhost: ${url.host}\r\nconnection: close\r\n\r\n`);
        socket.pause();
      });
      expect(downloaded).toBeGreaterThan(SIZE_MB * MB);

      const growth = peakRss(child.pid!) - before;
      expect(growth, `peak RSS grew by ${Math.round(growth / MB)} MB`).toBeLessThan(80 * MB);
      expect(stderr).toBe("record: POST /runs/wait was forwarded but not recorded: its request body is over 4194304 bytes\n");
    } finally {
      child.kill("SIGTERM");
    }
  }, 120_000);
});
