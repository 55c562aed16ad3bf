import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/index.js";

describe("errors in the real services' FastAPI shape", () => {
  const app = createApp({ seed: 1 });

  it("an unknown route is 404 {detail: Not Found}", async () => {
    const res = await request(app).get("/v2/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Not Found" });
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("a known path with another method is 405 with an Allow header", async () => {
    const res = await request(app).put("/v2/auth/providers");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
    expect(res.headers.allow).toContain("GET");
    expect(res.headers.allow).toContain("POST");
  });

  it("malformed JSON on the control plane is FastAPI's json_invalid 422", async () => {
    const res = await request(app).post("/v2/auth/providers").set("Content-Type", "application/json").send('{"name": ');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ type: "json_invalid", loc: ["body", 9], msg: "JSON decode error", input: {}, ctx: { error: "Expecting value" } }],
    });
  });

  it("a body over the limit is 413, not a crash", async () => {
    const small = createApp({ seed: 1, bodyLimit: "1kb" });
    const res = await request(small).post("/v2/auth/providers").set("Content-Type", "application/json").send(JSON.stringify({ name: "x".repeat(5000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: "Request Entity Too Large" });
  });

  it("does not advertise express", async () => {
    const res = await request(app).get("/v2/nothing-here");
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });
});

describe("API key", () => {
  const app = createApp({ seed: 1, apiKey: "sekret" });

  it("is required on the control plane when configured: 401 Invalid token", async () => {
    const missing = await request(app).get("/v2/auth/providers");
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ detail: "Invalid token" });
    const wrong = await request(app).get("/v2/auth/providers").set("X-Api-Key", "nope");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: "Invalid token" });
  });

  it("lets the right key through", async () => {
    const res = await request(app).get("/v2/auth/providers").set("X-Api-Key", "sekret");
    expect(res.status).toBe(200);
  });

  it("is never needed on /_mock", async () => {
    const res = await request(app).get("/_mock/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});

describe("request bodies", () => {
  const app = createApp({ seed: 1 });

  it("no body at all, or an empty one, is FastAPI's missing body", async () => {
    const expected = { detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] };
    const none = await request(app).post("/v2/auth/providers");
    expect(none.status).toBe(422);
    expect(none.body).toEqual(expected);
    const empty = await request(app).post("/v2/auth/providers").set("Content-Type", "application/json").set("Content-Length", "0").send("");
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual(expected);
  });

  it("a 422 echoes the body as sent, without the schema's defaults filled in", async () => {
    const res = await request(app).post("/v2/auth/providers").send({ name: "x" });
    expect(res.status).toBe(422);
    expect((res.body as { detail: { input: unknown }[] }).detail[0]?.input).toEqual({ name: "x" });
  });
});
