import express, { type ErrorRequestHandler } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { rawBodyOf } from "../../src/http/json-body.js";
import { jsonBody } from "../../src/http/json-parser.js";

// jsonBody() reads any body as JSON, keeps the bytes as sent, reads an empty body as none and refuses
// deep nesting before parsing.
const app = express();
app.use(jsonBody("1kb"));
app.use((req, res) => {
  res.json({ body: req.body === undefined ? "<undefined>" : req.body, raw: rawBodyOf(req)?.toString("utf8") ?? null });
});
app.use(((err, _req, res, _next) => {
  res.status(err.status ?? 500).json({ error: { status: err.status, type: err.type } });
}) as ErrorRequestHandler);

describe("jsonBody()", () => {
  it("reads a JSON body whatever its type and keeps the bytes as sent", async () => {
    const res = await request(app).post("/").set("Content-Type", "text/plain").send('{"a": 1}');
    expect(res.body).toEqual({ body: { a: 1 }, raw: '{"a": 1}' });
  });

  it("reads an empty body as none", async () => {
    const res = await request(app).post("/").set("Content-Type", "application/json").send("");
    expect(res.body).toEqual({ body: "<undefined>", raw: "" });
  });

  it("refuses malformed JSON, a body over the limit and nesting past the limit", async () => {
    expect((await request(app).post("/").set("Content-Type", "application/json").send('{"a": ')).body).toEqual({ error: { status: 400, type: "entity.parse.failed" } });
    expect((await request(app).post("/").set("Content-Type", "application/json").send(JSON.stringify({ a: "x".repeat(2000) }))).body).toEqual({ error: { status: 413, type: "entity.too.large" } });
    expect((await request(app).post("/").set("Content-Type", "application/json").send("[".repeat(80) + "]".repeat(80))).body).toEqual({ error: { status: 422, type: "entity.too.deep" } });
  });
});
