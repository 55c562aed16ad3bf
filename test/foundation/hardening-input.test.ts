import request from "supertest";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Express } from "express";
import { createApp, mockOf, startMockServer } from "../../src/index.js";
import { LoadError } from "../../src/core/load-error.js";
import { MAX_DEPTH } from "../../src/core/shape-limits.js";
import { issueFeedbackToken } from "../../src/tracing/feedback-tokens.js";
import { recordTokenFeedback } from "../../src/tracing/feedback-records.js";
import { HttpError } from "../../src/http/http-error.js";
import { contextOf } from "../../src/mock-control.js";
import { runsIn } from "../../src/agent-server/runs.js";

/** JSON text nested `depth` levels deep: `{"a":{"a":…}}`. */
const deepObject = (depth: number, leaf = "1") => '{"a":'.repeat(depth) + leaf + "}".repeat(depth);
const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

const RUN_ID = "0198c0de-0000-7000-8000-000000000001";
const THREAD_ID = "6f1c5b9e-2d4a-4c3b-9a8e-1f2d3c4b5a69";

/**
 * Regression tests for issue 11's "Why" list: hostile input (deep, huge or odd bodies and files) is
 * refused with the service's own error, and nothing it leaves behind breaks a later request.
 */
describe("hostile input", () => {
  let app: Express;
  beforeAll(() => {
    app = createApp({ seed: 11, publicUrl: "http://mock.test", scenarios: [{ name: "base", events: [{ event: "values", data: { ok: true } }] }] });
  });
  beforeEach(() => mockOf(app).reset());

  it("deep JSON on the fixture MCP server routes is refused in their OAuth shape, and the journal still lists it", async () => {
    for (const route of ["register", "token", "mcp"]) {
      const res = await request(app).post(`/_fixtures/mcp/github-tools/${route}`).set("Content-Type", "application/json").send(deepObject(8000));
      // RFC 6749's answer to a request it cannot read: 400 invalid_request.
      expect(res.status, route).toBe(400);
      expect(res.body.error).toBe("invalid_request");
      expect(res.body.error_description).toContain(`JSON nested deeper than ${MAX_DEPTH} levels`);
    }
    const journal = await request(app).get("/_mock/requests").expect(200);
    expect(journal.body.count).toBe(3);
    // The body is kept as the text sent: parsing it again would rebuild what the listing cannot serialise.
    expect(typeof journal.body.items[0].body).toBe("string");
  });

  it("deep JSON gets each service's own 422 shape", async () => {
    const body = deepArray(10_000);
    const fastApi = { detail: [{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ctx: { error: `Nested deeper than ${MAX_DEPTH} levels` } }] };
    await request(app).post("/v2/auth/providers").set("Content-Type", "application/json").send(body).expect(422, fastApi);
    await request(app).post("/api/v1/feedback").set("Content-Type", "application/json").send(body).expect(422, fastApi);
    const agent = await request(app).post("/threads").set("Content-Type", "application/json").send(body).expect(422);
    expect(agent.body).toEqual({ detail: `Invalid JSON body: JSON nested deeper than ${MAX_DEPTH} levels` });
    const admin = await request(app).post("/_mock/clock").set("Content-Type", "application/json").send(body).expect(422);
    expect(admin.body).toEqual({ detail: `Request body refused: JSON nested deeper than ${MAX_DEPTH} levels` });
    // Depth inside strings does not count.
    await request(app).post("/threads").send({ metadata: { note: "[".repeat(5000) } }).expect(200);
  });

  it("a deep feedback body is refused and not stored; the feedback listing keeps answering", async () => {
    const token = issueFeedbackToken(contextOf(mockOf(app)), contextOf(mockOf(app)).tracingUrl(), { run_id: RUN_ID, feedback_key: "user_liked", thread_id: THREAD_ID, assistant_id: "agent", scenario: "base" });
    const path = new URL(token.url).pathname;
    await request(app).post(path).set("Content-Type", "application/json").send(`{"score": 1, "metadata": ${deepObject(2000)}}`).expect(422);
    await request(app).post("/api/v1/feedback").send(`{"run_id": "${RUN_ID}", "key": "k", "value": ${deepArray(10_000)}}`).set("Content-Type", "application/json").expect(422);
    expect((await request(app).get("/_mock/feedback").expect(200)).body).toEqual({ items: [], count: 0 });
    expect(mockOf(app).feedback()).toEqual([]);
    await request(app).post(path).set("Content-Type", "application/json").send('{"score": 1}').expect(200);
    expect((await request(app).get("/_mock/feedback").expect(200)).body.count).toBe(1);
  });

  it("a record that could not be answered or listed is not stored, whatever path it came by", () => {
    const ctx = contextOf(mockOf(app));
    const token = issueFeedbackToken(ctx, ctx.tracingUrl(), { run_id: RUN_ID, feedback_key: "k", thread_id: THREAD_ID, assistant_id: "agent", scenario: "base" });
    const metadata = JSON.parse(deepObject(2000)) as Record<string, unknown>;
    expect(() => recordTokenFeedback(ctx, token, { score: 1, metadata }, "POST")).toThrow(HttpError);
    expect(mockOf(app).feedback()).toEqual([]);
  });

  it("deep scenario uploads are a 422, JSON and YAML alike", async () => {
    const json = await request(app).post("/_mock/scenarios").set("Content-Type", "application/json").send(`{"name": "deep", "events": [{"event": "values", "data": ${deepObject(10_000)}}]}`).expect(422);
    expect(json.body.detail[0].reason).toBe(`refused: nested deeper than ${MAX_DEPTH} levels`);
    const yaml = await request(app).post("/_mock/scenarios").set("Content-Type", "application/yaml").send(`name: deep\nevents:\n  - event: values\n    data: ${"[".repeat(200)}${"]".repeat(200)}\n`).expect(422);
    expect(yaml.body.detail[0].reason).toMatch(/nested deeper than|invalid YAML/);
  });

  it("YAML aliases are counted by their expanded size", async () => {
    const list = Array.from({ length: 20_000 }, (_, i) => i).join(", ");
    const aliases = Array.from({ length: 99 }, (_, i) => `  a${i}: *big`).join("\n");
    const text = `name: amplified\nevents:\n  - event: values\n    data:\n      big: &big [${list}]\n${aliases.replace(/^ {2}/gm, "      ")}\n`;
    const res = await request(app).post("/_mock/scenarios").set("Content-Type", "application/yaml").send(text).expect(422);
    expect(res.body.detail[0].reason).toMatch(/^refused: more than 1000000 values once expanded/);
  });

  it("the journal survives an array query and redacts credentials by default", async () => {
    await request(app).post("/v2/auth/providers").set("X-Api-Key", "sk-secret").set("Authorization", "Bearer tok").set("Cookie", "s=1").send({ provider_id: "p", client_secret: "shh" });
    await request(app).get("/threads/search");
    // A repeated filter is read as one value (the admin API's query rules), never a 500.
    const repeated = await request(app).get("/_mock/requests?method=GET&method=POST");
    expect(repeated.status).toBe(200);
    const both = await request(app).get("/_mock/requests").expect(200);
    expect(both.body.items.map((e: { method: string }) => e.method)).toEqual(["POST", "GET"]);
    const [entry] = both.body.items;
    expect(entry.headers["x-api-key"]).toBe("[redacted]");
    expect(entry.headers.authorization).toBe("[redacted]");
    expect(entry.headers.cookie).toBe("[redacted]");
    expect(entry.body.client_secret).toBe("[redacted]");
    expect(JSON.stringify(both.body)).not.toMatch(/sk-secret|shh|Bearer tok/);
  });

  it("redacts a credential in a UTF-16 body, which the services read as JSON", async () => {
    const mock = await startMockServer({ seed: 1, fixtures: false });
    try {
      const body = Buffer.from(JSON.stringify({ provider_id: "u16", name: "U16", client_id: "c", client_secret: "TOPSECRET-u16", auth_url: "https://p/a", token_url: "https://p/t" }), "utf16le");
      const res = await fetch(`${mock.url}/v2/auth/providers`, { method: "POST", headers: { "content-type": "application/json; charset=utf-16le" }, body });
      expect(res.status).toBe(200);
      expect(mock.requests()[0]?.body).toMatchObject({ provider_id: "u16", client_secret: "[redacted]" });
      expect(JSON.stringify(mock.requests())).not.toContain("TOPSECRET");
    } finally {
      await mock.close();
    }
  });

  it("journal.showSecrets keeps credentials in clear", async () => {
    const open = createApp({ seed: 1, fixtures: false, journal: { showSecrets: true } });
    await request(open).post("/v2/auth/providers").set("X-Api-Key", "sk-secret").send({ client_secret: "shh" });
    const [entry] = mockOf(open).requests();
    expect(entry?.headers["x-api-key"]).toBe("sk-secret");
    expect((entry?.body as { client_secret: string }).client_secret).toBe("shh");
  });

  it("mcp-discover with a lone surrogate in provider_id is pydantic's 422, not a 500 (it would go into the callback URL)", async () => {
    const res = await request(app)
      .post("/v2/auth/providers/mcp-discover")
      .set("Content-Type", "application/json")
      .send('{"provider_id": "\\ud800", "name": "x", "mcp_server_url": "http://mock.test/_fixtures/mcp/github-tools/mcp"}');
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ type: "string_unicode", loc: ["body", "provider_id"], input: "\ud800" })]);
  });
});

describe("clock and delay bounds", () => {
  let app: Express;
  beforeAll(() => {
    app = createApp({ seed: 3, fixtures: false, scenarios: [{ name: "slow", events: [{ event: "values", data: { a: 1 }, delay_ms: 1000 }] }] });
  });
  beforeEach(() => mockOf(app).reset());

  it("after_seconds past the clock's last instant is a 422, not a spinning run", async () => {
    const res = await request(app).post("/runs/wait").send({ assistant_id: "agent", after_seconds: 1e13 }).expect(422);
    expect(res.body.detail).toMatch(/after_seconds/);
    const near = await request(app).post("/runs/wait").send({ assistant_id: "agent", after_seconds: 8.639e12 }).expect(422);
    expect(near.body.detail).toMatch(/last instant the clock can hold/);
  });

  it("a clock set past the last instant is refused; at the last instant a delayed run ends with a RangeError", async () => {
    const past = await request(app).post("/_mock/clock").send({ set: "+010000-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    await request(app).post("/_mock/clock").send({ set: "9999-12-31T23:59:59.999Z" }).expect(200);
    const res = await request(app).post("/runs/wait").send({ assistant_id: "agent" }).expect(200);
    // The run ended (no spin): it failed the way a crashed graph does, naming the RangeError.
    const [run] = [...runsIn(contextOf(mockOf(app))).values()];
    expect(run?.status).toBe("error");
    expect(JSON.stringify(res.body)).toMatch(/RangeError|past/);
  });

  it("a delay_ms past the representable range is refused at load", async () => {
    const res = await request(app).post("/_mock/scenarios").send({ name: "forever", events: [{ event: "values", data: {}, delay_ms: 9e15 }] }).expect(422);
    expect(res.body.detail[0].pointer).toBe("/events/0/delay_ms");
  });

  it("a year-long virtual wait takes a bounded number of heartbeats", async () => {
    await request(app).post("/_mock/scenarios").send({ name: "year", match: { input: { year: true } }, priority: 10, events: [{ event: "values", data: { a: 1 }, delay_ms: 365 * 24 * 3600 * 1000 }] }).expect(200);
    const res = await request(app).post("/runs/stream").send({ assistant_id: "agent", input: { year: true } }).expect(200);
    const beats = res.text.split(": heartbeat").length - 1;
    expect(beats).toBe(1000);
    expect(res.text).toContain("event: values");
  });
});

describe("odd things among fixture files", () => {
  it("a folder named x.json is a problem naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-hard-"));
    mkdirSync(join(dir, "x.json"));
    writeFileSync(join(dir, "ok.json"), "{}");
    const err = catchLoad(() => createApp({ fixtures: dir }));
    expect(err.problems).toEqual([{ file: join(dir, "x.json"), pointer: "", reason: "is a folder, not a file" }]);
  });

  it("a FIFO named *.json is a problem naming it, not a hang", () => {
    const dir = mkdtempSync(join(tmpdir(), "apm-hard-"));
    execFileSync("mkfifo", [join(dir, "pipe.json")]);
    const err = catchLoad(() => createApp({ fixtures: dir }));
    expect(err.problems[0]).toMatchObject({ file: join(dir, "pipe.json"), reason: expect.stringMatching(/not a regular file/) });
  });

  it("{{faker.string.valueOf}} and other inherited names are refused at load", () => {
    for (const expr of ["faker.string.valueOf", "faker.string.toString", "faker.string.hasOwnProperty"]) {
      const err = catchLoad(() => createApp({ fixtures: false, scenarios: [{ name: "f", events: [{ event: "values", data: { x: `{{${expr}}}` } }] }] }));
      expect(err.problems[0]?.reason, expr).toMatch(/not a faker method/);
    }
  });
});

function catchLoad(fn: () => unknown): LoadError {
  try {
    fn();
  } catch (err) {
    if (err instanceof LoadError) return err;
    throw err;
  }
  throw new Error("expected a LoadError");
}
