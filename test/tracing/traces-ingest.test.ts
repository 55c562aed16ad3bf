import { describe, expect, it } from "vitest";
import request from "supertest";
import { gzipSync } from "node:zlib";
import * as zlib from "node:zlib";
import { createApp, mockOf } from "../../src/index.js";
import { appForFile } from "../support/app-presets.js";
import { traceStoreOf } from "../../src/tracing/trace-store.js";
import { contextOf } from "../../src/mock-control.js";

const ROOT = "0198c0de-2700-7000-8000-000000000001";
const CHILD = "0198c0de-2700-7000-8000-000000000002";
const OTHER = "0198c0de-2700-7000-8000-000000000003";
const DOTTED_ROOT = `20260115T090000000000Z${ROOT}`;
const DOTTED_CHILD = `${DOTTED_ROOT}.20260115T090001000000Z${CHILD}`;

/** A multipart body as the clients write it. */
function multipart(parts: { name: string; type?: string; data: string | Buffer }[], boundary = "----LangSmithFormBoundaryabc"): { body: Buffer; type: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const data = typeof p.data === "string" ? Buffer.from(p.data) : p.data;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\nContent-Type: ${p.type ?? `application/json; length=${data.length}`}\r\n\r\n`), data, Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

const rootPost = { id: ROOT, name: "agent", run_type: "chain", start_time: "2026-01-15T09:00:00.000000", trace_id: ROOT, dotted_order: DOTTED_ROOT, session_name: "ingest" };
const childPost = { id: CHILD, name: "search", run_type: "tool", start_time: "2026-01-15T09:00:01.000000", trace_id: ROOT, parent_run_id: ROOT, dotted_order: DOTTED_CHILD, session_name: "ingest" };

describe("run ingestion through HTTP", () => {
  const app = appForFile("tracing");
  const mock = mockOf(app);

  it("POST /runs/batch stores posts and applies patches; GET /runs/{id} reads them back", async () => {
    const res = await request(app)
      .post("/api/v1/runs/batch")
      .send({ post: [{ ...rootPost, inputs: { q: "hi" } }, { ...childPost, inputs: { query: "hi" } }], patch: [{ id: CHILD, trace_id: ROOT, dotted_order: DOTTED_CHILD, end_time: "2026-01-15T09:00:02Z", error: "Timeout" }] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: "Runs batch ingested" });
    const child = await request(app).get(`/api/v1/runs/${CHILD.toUpperCase()}`);
    expect(child.status).toBe(200);
    expect(child.body).toMatchObject({ id: CHILD, name: "search", status: "error", error: "Timeout", parent_run_id: ROOT, parent_run_ids: [ROOT], start_time: "2026-01-15T09:00:01.000000+00:00", end_time: "2026-01-15T09:00:02.000000+00:00", inputs: { query: "hi" } });
    const root = await request(app).get(`/api/v1/runs/${ROOT}`);
    expect(root.body).toMatchObject({ status: "pending", child_run_ids: [CHILD], direct_child_run_ids: [CHILD], end_time: null });
    expect(mock.traces().map((t) => t.id)).toEqual([ROOT, CHILD]);
  });

  it("refuses a run without its name or with an unknown run type, FastAPI-style, storing nothing", async () => {
    const res = await request(app).post("/api/v1/runs/batch").send({ post: [{ id: ROOT, run_type: "chain" }, { id: CHILD, name: "x", run_type: "robot" }] });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ["body", "post", 0, "name"],
      ["body", "post", 1, "run_type"],
    ]);
    expect(mock.traces()).toEqual([]);
  });

  it("GET /runs/{id} of an unknown run is 404; a run id that is not a UUID is 422", async () => {
    expect((await request(app).get(`/api/v1/runs/${OTHER}`)).body).toEqual({ detail: "Run not found" });
    const bad = await request(app).get("/api/v1/runs/nope");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "run_id"] });
  });

  it("POST /runs/multipart reads posts, field parts, patches, attachments and feedback", async () => {
    const { body, type } = multipart([
      { name: `post.${ROOT}`, data: JSON.stringify(rootPost) },
      { name: `post.${ROOT}.inputs`, data: JSON.stringify({ question: "why" }) },
      { name: `post.${CHILD}`, data: JSON.stringify(childPost) },
      { name: `post.${CHILD}.outputs`, data: JSON.stringify({ hits: 2 }) },
      { name: `attachment.${CHILD}.screenshot`, type: "image/png; length=4", data: Buffer.from([1, 2, 3, 4]) },
      { name: `patch.${ROOT}`, data: JSON.stringify({ id: ROOT, trace_id: ROOT, dotted_order: DOTTED_ROOT, end_time: "2026-01-15T09:00:03Z" }) },
      { name: `patch.${ROOT}.outputs`, data: JSON.stringify({ answer: "because" }) },
      { name: `feedback.${OTHER}`, data: JSON.stringify({ run_id: ROOT, trace_id: ROOT, key: "correct", score: 1 }) },
    ]);
    const res = await request(app).post("/api/v1/runs/multipart").set("content-type", type).send(body);
    expect(res.status).toBe(202);
    const [root, child] = mock.traces();
    expect(root).toMatchObject({ id: ROOT, inputs: { question: "why" }, outputs: { answer: "because" }, status: "success", session_name: "ingest" });
    expect(child).toMatchObject({ id: CHILD, outputs: { hits: 2 }, attachments: { screenshot: { content_type: "image/png", size: 4 } } });
    expect(mock.feedback({ run_id: ROOT })).toMatchObject([{ id: OTHER, key: "correct", score: 1 }]);
    const read = await request(app).get(`/api/v1/runs/${ROOT}`);
    expect(read.body.feedback_stats).toEqual({ correct: { n: 1, avg: 1, values: {} } });
  });

  it("an update that arrives before its run waits for it", async () => {
    await request(app).patch(`/api/v1/runs/${ROOT}`).send({ end_time: "2026-01-15T09:00:05Z", outputs: { late: true } }).expect(202);
    expect(mock.traces()).toEqual([]);
    await request(app).post("/api/v1/runs").send(rootPost).expect(202);
    expect(mock.traces()).toMatchObject([{ id: ROOT, outputs: { late: true }, end_time: "2026-01-15T09:00:05.000000+00:00", status: "success" }]);
    const again = await request(app).post("/api/v1/runs").send(rootPost);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: `Run ${ROOT} already exists` });
  });

  it("a gzip-compressed multipart body is read", async () => {
    const { body, type } = multipart([{ name: `post.${ROOT}`, data: JSON.stringify(rootPost) }]);
    const res = await request(app).post("/api/v1/runs/multipart").set("content-type", type).set("content-encoding", "gzip").send(gzipSync(body));
    expect(res.status).toBe(202);
    expect(mock.traces().map((t) => t.name)).toEqual(["agent"]);
  });

  it("zstd is advertised and read exactly when this Node's zlib has it", async () => {
    const hasZstd = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === "function";
    const info = await request(app).get("/api/v1/info");
    expect(info.body.instance_flags).toEqual({ gzip_body_enabled: true, zstd_compression_enabled: hasZstd });
    const { body, type } = multipart([{ name: `post.${ROOT}`, data: JSON.stringify(rootPost) }]);
    const compress = (zlib as unknown as { zstdCompressSync?: (b: Buffer) => Buffer }).zstdCompressSync;
    const res = await request(app).post("/api/v1/runs/multipart").set("content-type", type).set("content-encoding", "zstd").send(hasZstd && compress ? compress(body) : body);
    if (hasZstd) expect(res.status).toBe(202);
    else expect(res.body).toEqual({ detail: 'unsupported content encoding "zstd"' });
    expect(res.status).toBe(hasZstd ? 202 : 415);
  });

  it("refuses what is not a multipart body, an unknown part and a part that is not JSON", async () => {
    const notMultipart = await request(app).post("/api/v1/runs/multipart").set("content-type", "application/json").send("{}");
    expect(notMultipart.status).toBe(400);
    expect(notMultipart.body).toEqual({ detail: "There was an error parsing the body" });
    const unknown = multipart([{ name: `poast.${ROOT}`, data: "{}" }]);
    const res = await request(app).post("/api/v1/runs/multipart").set("content-type", unknown.type).send(unknown.body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^Invalid part name "poast\./);
    const broken = multipart([{ name: `post.${ROOT}`, data: "{not json" }]);
    const bad = await request(app).post("/api/v1/runs/multipart").set("content-type", broken.type).send(broken.body);
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: `Part "post.${ROOT}" is not valid JSON` });
    const invalid = multipart([{ name: `post.${ROOT}`, data: JSON.stringify({ ...rootPost, run_type: "robot" }) }]);
    const refused = await request(app).post("/api/v1/runs/multipart").set("content-type", invalid.type).send(invalid.body);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ["body", "post", 0, "run_type"] });
    expect(mock.traces()).toEqual([]);
  });

  it("sessions: a run's project is made on first use; readProject's GET /sessions?name= finds it", async () => {
    await request(app).post("/api/v1/runs/batch").send({ post: [rootPost] }).expect(202);
    const found = await request(app).get("/api/v1/sessions").query({ name: "ingest" });
    expect(found.body).toMatchObject([{ name: "ingest", run_count: 1, last_run_start_time: "2026-01-15T09:00:00.000000+00:00" }]);
    expect((await request(app).get(`/api/v1/sessions/${found.body[0].id}`)).body).toMatchObject({ name: "ingest" });
    expect((await request(app).get("/api/v1/sessions").query({ name: "other" })).body).toEqual([]);
    const made = await request(app).post("/api/v1/sessions").send({ name: "made" });
    expect(made.status).toBe(200);
    expect((await request(app).post("/api/v1/sessions").send({ name: "made" })).status).toBe(409);
    expect((await request(app).post("/api/v1/sessions?upsert=true").send({ name: "made", description: "d" })).body).toMatchObject({ id: made.body.id, description: "d" });
  });
});

describe("the bounds", () => {
  it("a decompressed body over the body limit is refused with 413, and nothing is stored", async () => {
    const app = createApp({ seed: 1, fixtures: false, bodyLimit: "10kb" });
    const { body, type } = multipart([{ name: `post.${ROOT}`, data: JSON.stringify({ ...rootPost, inputs: { pad: "x".repeat(50_000) } }) }]);
    const compressed = gzipSync(body);
    expect(compressed.length).toBeLessThan(10 * 1024);
    const res = await request(app).post("/api/v1/runs/multipart").set("content-type", type).set("content-encoding", "gzip").send(compressed);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: "Request Entity Too Large" });
    expect(mockOf(app).traces()).toEqual([]);
    expect((await request(app).get("/api/v1/info")).body.batch_ingest_config.size_limit_bytes).toBe(10 * 1024);
  });

  it("past the cap the oldest runs are dropped first, and the drop is counted", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    traceStoreOf(contextOf(mockOf(app))).maxRuns = 2;
    const post = (i: number) => ({ id: `0198c0de-2700-7000-8000-00000000010${i}`, name: `run${i}`, run_type: "chain" });
    await request(app).post("/api/v1/runs/batch").send({ post: [post(1), post(2), post(3)] }).expect(202);
    const res = await request(app).get("/_mock/traces");
    expect(res.body).toMatchObject({ count: 2, dropped: 1 });
    expect(res.body.items.map((t: { name: string }) => t.name).sort()).toEqual(["run2", "run3"]);
    await request(app).post("/_mock/reset").send({ scope: "traces" }).expect(200);
    expect((await request(app).get("/_mock/traces")).body).toEqual({ items: [], count: 0, dropped: 0 });
  });
});

describe("the byte cap", () => {
  it("past the payload cap the oldest runs go first, counted like the run cap", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    traceStoreOf(contextOf(mockOf(app))).maxBytes = 2500;
    const post = (i: number) => ({ id: `0198c0de-2700-7000-8000-00000000020${i}`, name: `big${i}`, run_type: "chain", inputs: { pad: "x".repeat(1000) } });
    for (const i of [1, 2, 3]) await request(app).post("/api/v1/runs").send(post(i)).expect(202);
    const res = await request(app).get("/_mock/traces");
    expect(res.body).toMatchObject({ count: 2, dropped: 1 });
    expect(res.body.items.map((t: { name: string }) => t.name).sort()).toEqual(["big2", "big3"]);
  });
});

describe("updates waiting for their run", () => {
  const run = (i: number) => `0198c0de-2700-7000-8000-00000000030${i}`;
  const traces = async (app: ReturnType<typeof createApp>) => (await request(app).get("/_mock/traces")).body as { count: number; dropped: number };

  it("hold at most a tenth of the run cap: past it the oldest waiting update is dropped, and counted", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    traceStoreOf(contextOf(mockOf(app))).maxRuns = 20;
    for (const i of [1, 2, 3]) await request(app).patch(`/api/v1/runs/${run(i)}`).send({ error: `e${i}` }).expect(202);
    expect(await traces(app)).toMatchObject({ count: 0, dropped: 1 });
    for (const i of [1, 2, 3]) await request(app).post("/api/v1/runs").send({ id: run(i), name: `r${i}`, run_type: "chain" }).expect(202);
    expect(mockOf(app).traces().map((t) => t.error)).toEqual([null, "e2", "e3"]);
  });

  it("count their bytes: the same run patched again and again keeps only what fits a tenth of the byte cap", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    traceStoreOf(contextOf(mockOf(app))).maxBytes = 10_000;
    for (const n of [1, 2, 3, 4, 5]) await request(app).patch(`/api/v1/runs/${run(1)}`).send({ outputs: { n, blob: "z".repeat(400) } }).expect(202);
    expect(await traces(app)).toMatchObject({ count: 0, dropped: 3 });
    await request(app).post("/api/v1/runs").send({ id: run(1), name: "r1", run_type: "chain" }).expect(202);
    expect(mockOf(app).traces()).toMatchObject([{ outputs: { n: 5 } }]);
  });

  it("count toward the run cap with the runs, and are forgotten on reset", async () => {
    const app = createApp({ seed: 1, fixtures: false });
    traceStoreOf(contextOf(mockOf(app))).maxRuns = 3;
    for (const i of [1, 2, 3]) await request(app).post("/api/v1/runs").send({ id: run(i), name: `r${i}`, run_type: "chain" }).expect(202);
    await request(app).patch(`/api/v1/runs/${run(4)}`).send({ error: "late" }).expect(202);
    expect(await traces(app)).toMatchObject({ count: 2, dropped: 1 });
    await request(app).post("/_mock/reset").send({ scope: "traces" }).expect(200);
    await request(app).post("/api/v1/runs").send({ id: run(4), name: "r4", run_type: "chain" }).expect(202);
    expect(mockOf(app).traces()).toMatchObject([{ name: "r4", error: null }]);
  });
});

describe("/_mock/traces", () => {
  const app = appForFile("tracing");

  it("filters by name, run type, trace, parent and error; refuses unknown keys", async () => {
    await request(app)
      .post("/api/v1/runs/batch")
      .send({ post: [rootPost, { ...childPost, error: "boom", end_time: "2026-01-15T09:00:02Z" }, { ...rootPost, id: OTHER, trace_id: OTHER, dotted_order: `20260115T090005000000Z${OTHER}`, name: "other" }] })
      .expect(202);
    const names = async (query: Record<string, string>) => ((await request(app).get("/_mock/traces").query(query)).body as { items: { name: string }[] }).items.map((t) => t.name);
    expect(await names({})).toEqual(["agent", "search", "other"]);
    expect(await names({ name: "search" })).toEqual(["search"]);
    expect(await names({ run_type: "chain" })).toEqual(["agent", "other"]);
    expect(await names({ trace_id: ROOT.toUpperCase() })).toEqual(["agent", "search"]);
    expect(await names({ parent_run_id: ROOT })).toEqual(["search"]);
    expect(await names({ error: "true" })).toEqual(["search"]);
    expect(await names({ error: "false" })).toEqual(["agent", "other"]);
    const unknown = await request(app).get("/_mock/traces").query({ nam: "agent" });
    expect(unknown.status).toBe(400);
    expect(() => mockOf(app).traces({ nam: "agent" } as never)).toThrow(/unknown trace filter "nam"/);
    const cleared = await request(app).delete("/_mock/traces");
    expect(cleared.body).toEqual({ ok: true, deleted: 3 });
    expect(await names({})).toEqual([]);
  });
});
