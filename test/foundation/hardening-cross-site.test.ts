import request from "supertest";
import { request as httpRequest } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import type { Express } from "express";
import { createApp, mockOf, startMockServer } from "../../src/index.js";

/**
 * Issue 28, defect 3: another web page can send "simple" requests (text/plain, forms) to the mock
 * without a preflight. Service routes read JSON bodies only from a JSON Content-Type, as FastAPI does,
 * and refuse state changes from origins that are neither loopback, the mock's own nor configured.
 */
const RUN_ID = "0198c0de-0000-7000-8000-000000000001";
const MODEL_ATTRIBUTES = { type: "model_attributes_type", loc: ["body"], msg: "Input should be a valid dictionary or object to extract fields from" };

async function tokenPath(app: Express): Promise<string> {
  const res = await request(app).post("/api/v1/feedback/tokens").send({ run_id: RUN_ID, feedback_key: "liked" }).expect(200);
  return new URL(res.body.url as string).pathname;
}

describe("JSON bodies only as JSON", () => {
  let app: Express;
  beforeAll(() => {
    app = createApp({ seed: 1, fixtures: false });
  });

  it("tracing: a text/plain body is FastAPI's 422 for bytes, and no feedback is recorded", async () => {
    const text = JSON.stringify({ run_id: RUN_ID, key: "forged", score: 1 });
    const res = await request(app).post("/api/v1/feedback").set("Content-Type", "text/plain").send(text).expect(422);
    expect(res.body).toEqual({ detail: [{ ...MODEL_ATTRIBUTES, input: text }] });
    const token = await tokenPath(app);
    const viaToken = await request(app).post(token).set("Content-Type", "text/plain;charset=UTF-8").send('{"score": 1}').expect(422);
    expect(viaToken.body).toEqual({ detail: [{ ...MODEL_ATTRIBUTES, input: '{"score": 1}' }] });
    // FastAPI quotes the bytes whatever charset they claim.
    const odd = await request(app).post("/api/v1/feedback").set("Content-Type", "text/plain; charset=x-unknown").send("é").expect(422);
    expect(odd.body).toEqual({ detail: [{ ...MODEL_ATTRIBUTES, input: "é" }] });
    const form = await request(app).post("/api/v1/feedback-configs").type("form").send("feedback_key=x").expect(422);
    expect(form.body).toEqual({ detail: [{ ...MODEL_ATTRIBUTES, input: "feedback_key=x" }] });
    expect(mockOf(app).feedback()).toEqual([]);
  });

  it("control plane: a deployment or OAuth provider sent as text/plain is refused and not created", async () => {
    const before = (await request(app).get("/v2/deployments").expect(200)).body;
    const res = await request(app).post("/v2/deployments").set("Content-Type", "text/plain").send('{"name": "forged"}').expect(422);
    expect(res.body).toEqual({ detail: [{ ...MODEL_ATTRIBUTES, input: '{"name": "forged"}' }] });
    expect((await request(app).get("/v2/deployments").expect(200)).body).toEqual(before);
    await request(app).post("/v2/auth/providers").set("Content-Type", "text/plain").send('{"provider_id": "p"}').expect(422);
  });

  it("agent server: a body is JSON whatever its Content-Type, as Starlette's request.json() reads it; another site is stopped by its Origin", async () => {
    const res = await request(app).post("/threads").set("Content-Type", "text/plain").send('{"metadata": {"via": "curl"}}').expect(200);
    expect(res.body.metadata).toEqual({ via: "curl" });
    await request(app).post("/threads").set("Content-Type", "text/plain").send("{").expect(422);
    await request(app).post("/threads").set("Content-Type", "text/plain").set("Origin", "https://evil.example").send("{}").expect(403);
    expect((await request(app).post("/threads/search").send({}).expect(200)).body.map((t: { metadata: object }) => t.metadata)).toEqual([{ via: "curl" }]);
  });

  it("JSON types (+json, parameters, or none at all) and empty non-JSON bodies are read as before", async () => {
    await request(app).post("/threads").set("Content-Type", "application/vnd.api+json; charset=utf-8").send("{}").expect(200);
    await request(app).post("/threads").set("Content-Type", "text/plain").expect(200);
    const server = await startMockServer({ port: 0, seed: 1, fixtures: false });
    try {
      const url = new URL("/threads", server.url);
      // No Content-Type at all: FastAPI parses JSON, and so does the mock.
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(url, { method: "POST", headers: { "Content-Length": "2" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end("{}");
      });
      expect(status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("state changes from other origins", () => {
  let app: Express;
  let configured: Express;
  beforeAll(() => {
    app = createApp({ seed: 1, fixtures: false });
    configured = createApp({ seed: 1, fixtures: false, corsOrigins: ["https://app.example"] });
  });

  it("another site's Origin cannot record feedback, create threads, deployments or tokens", async () => {
    const token = await tokenPath(app);
    const forged = await request(app).post(token).set("Origin", "https://evil.example").send({ score: 1 }).expect(403);
    expect(forged.body).toEqual({ detail: "Requests from origin https://evil.example may not change state here; allow it with --cors-origin https://evil.example (the corsOrigins option)" });
    expect(forged.headers["access-control-allow-origin"]).toBeUndefined();
    await request(app).post("/threads").set("Origin", "https://evil.example").send({}).expect(403);
    await request(app).post("/v2/deployments").set("Origin", "https://evil.example").send({ name: "x" }).expect(403);
    await request(app).post("/api/v1/feedback/tokens").set("Origin", "https://evil.example").send({ run_id: RUN_ID, feedback_key: "k" }).expect(403);
    await request(app).delete("/threads/6f1c5b9e-2d4a-4c3b-9a8e-1f2d3c4b5a69").set("Origin", "null").expect(403);
    expect(mockOf(app).feedback()).toEqual([]);
    expect((await request(app).get("/api/v1/feedback/tokens").query({ run_id: RUN_ID }).expect(200)).body).toHaveLength(1);
    expect((await request(app).post("/threads/search").send({}).expect(200)).body).toEqual([]);
  });

  it("pre-signed URLs keep working without an Origin, from loopback front ends and from the mock's own pages", async () => {
    const token = await tokenPath(app);
    await request(app).post(token).send({ score: 1 }).expect(200);
    await request(app).post(token).set("Origin", "http://localhost:5173").send({ score: 0.5 }).expect(200);
    await request(app).post(token).set("Origin", "http://127.0.0.1:3000").send({ score: 0 }).expect(200);
    await request(app).post(token).set("Origin", "http://[::1]:3000").send({ score: 0 }).expect(200);
    await request(app).post(token).set("Host", "mock.internal:8123").set("Origin", "http://mock.internal:8123").send({ score: 0 }).expect(200);
    expect(mockOf(app).feedback()).toHaveLength(5);
    // Reads stay with CORS: another site may read what CORS lets it.
    await request(app).get(token).set("Origin", "https://evil.example").query({ score: 1 }).expect(200);
  });

  it("with --cors-origin, that origin may write; other sites may not", async () => {
    const token = await tokenPath(configured);
    const ok = await request(configured).post(token).set("Origin", "https://app.example").send({ score: 1 }).expect(200);
    expect(ok.headers["access-control-allow-origin"]).toBe("https://app.example");
    await request(configured).post(token).set("Origin", "https://other.example").send({ score: 1 }).expect(403);
    await request(configured).post("/threads").set("Origin", "https://other.example").send({}).expect(403);
    expect(mockOf(configured).feedback()).toHaveLength(1);
    const any = createApp({ seed: 1, fixtures: false, corsOrigins: ["*"] });
    await request(any).post("/threads").set("Origin", "https://anyone.example").send({}).expect(200);
  });
});
