import express, { type ErrorRequestHandler } from "express";
import { request } from "node:http";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawBodyOf } from "../../src/http/json-body.js";
import { jsonBody } from "../../src/http/json-parser.js";

// jsonBody() reads the usual request (JSON or untyped, a Content-Length, not compressed) itself and
// hands every other to body-parser; both must give the same body, raw bytes and errors. A charset
// parameter sends the same bytes through body-parser, so each body is read both ways and compared.
const app = express();
app.use(jsonBody("1kb"));
app.use((req, res) => {
  res.json({ body: req.body === undefined ? "<undefined>" : req.body, raw: rawBodyOf(req)?.toString("base64") ?? null });
});
app.use(((err, _req, res, _next) => {
  res.status(err.status ?? 500).json({ error: { status: err.status, type: err.type, message: err.message, body: err.body } });
}) as ErrorRequestHandler);

const BODIES: [string, Buffer][] = [
  ["an object", Buffer.from('{"a":1,"b":[true,null]}')],
  ["an empty body", Buffer.alloc(0)],
  ["a byte order mark", Buffer.from('\ufeff{"a":1}')],
  ["a scalar", Buffer.from('"text"')],
  ["null", Buffer.from("null")],
  ["only spaces", Buffer.from("   ")],
  ["malformed JSON", Buffer.from('{"a": ')],
  ["invalid UTF-8", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ["a __proto__ key", Buffer.from('{"__proto__":{"x":1}}')],
  ["nesting past the limit", Buffer.from("[".repeat(80) + "]".repeat(80))],
  ["a body over the limit", Buffer.from(JSON.stringify({ a: "x".repeat(2000) }))],
];

let server: Server;
beforeAll(() => new Promise<void>((resolve) => (server = app.listen(0, "127.0.0.1", () => resolve()))));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `body` as bytes (supertest would re-encode them) and reads the answer. */
function read(contentType: string | undefined, body: Buffer): Promise<{ status: number; body: unknown }> {
  const { port } = server.address() as { port: number };
  const headers: Record<string, string | number> = { "Content-Length": body.length };
  if (contentType) headers["Content-Type"] = contentType;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("jsonBody()'s own reading of plain JSON requests", () => {
  it.each(BODIES)("gives body-parser's body, bytes and errors for %s", async (_name, body) => {
    const byBodyParser = await read("application/json; charset=utf-8", body);
    expect(await read("application/json", body)).toEqual(byBodyParser);
    expect(await read(undefined, body)).toEqual(byBodyParser);
  });

  it("reads a plain JSON body and refuses a malformed one (what the comparisons above compare)", async () => {
    expect(await read("application/json", Buffer.from('{"a":1}'))).toEqual({ status: 200, body: { body: { a: 1 }, raw: Buffer.from('{"a":1}').toString("base64") } });
    const malformed = await read("application/json", Buffer.from('{"a": '));
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { type: "entity.parse.failed" } });
  });
});
