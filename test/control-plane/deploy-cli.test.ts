import { beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, mockOf } from "../../src/index.js";

const MISSING = "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f";
const app = createApp({ seed: 5, publicUrl: "http://mock.test" });
const pathOf = (url: string) => url.replace("http://mock.test", "");
const source = (name: string) => ({ name, source: "internal_source", source_config: {}, source_revision_config: {}, secrets: [] });

beforeEach(() => mockOf(app).reset());

async function uploaded(name: string) {
  const d = (await request(app).post("/v2/deployments").send(source(name)).expect(201)).body;
  const upload = (await request(app).post(`/v2/deployments/${d.id}/upload-url`).expect(200)).body;
  return { d, upload };
}

describe("upload-url and the upload", () => {
  it("hands out a signed URL on the mock's origin whose object path becomes valid once uploaded", async () => {
    const { d, upload } = await uploaded("src-a");
    expect(upload).toEqual({
      upload_url: expect.stringMatching(/^http:\/\/mock\.test\/uploads\/[0-9a-f-]{36}\/source\.tar\.gz\?signature=[0-9a-f]{64}$/),
      object_path: expect.stringMatching(/^uploads\/[0-9a-f-]{36}\/source\.tar\.gz$/),
    });
    const patch = { revision_source: "internal_source", source_revision_config: { source_tarball_path: upload.object_path, langgraph_config_path: "langgraph.json" } };
    // Handed out but nothing put there yet: not a tarball.
    const early = await request(app).patch(`/v2/deployments/${d.id}`).send(patch).expect(400);
    expect(early.body.detail).toContain(`'source_revision_config.source_tarball_path' must be an object path obtained from POST /v2/deployments/{deployment_id}/upload-url`);
    await request(app).put(pathOf(upload.upload_url)).set("Content-Type", "application/gzip").send(Buffer.from("gzip bytes")).expect(200, "");
    const journal = mockOf(app).requests({ method: "PUT" });
    expect(journal.at(-1)).toMatchObject({ body: { $binary: true, size: 10 }, status: 200 });
    const ok = await request(app).patch(`/v2/deployments/${d.id}`).send(patch).expect(200);
    expect(ok.body.latest_revision_id).not.toBeNull();
  });

  it("refuses a tarball path that is made up, or another deployment's", async () => {
    const a = await uploaded("src-a");
    const b = await uploaded("src-b");
    await request(app).put(pathOf(a.upload.upload_url)).send(Buffer.from("a")).expect(200);
    for (const path of ["uploads/1/source.tar.gz", a.upload.object_path]) {
      await request(app)
        .patch(`/v2/deployments/${b.d.id}`)
        .send({ source_revision_config: { source_tarball_path: path, langgraph_config_path: "langgraph.json" } })
        .expect(400);
    }
    // On create there is no deployment to have uploaded anything yet.
    await request(app).post("/v2/deployments").send({ ...source("src-c"), source_revision_config: { source_tarball_path: a.upload.object_path, langgraph_config_path: "l.json" } }).expect(400);
  });

  it("a PUT with a wrong or missing signature is refused", async () => {
    const { upload } = await uploaded("src-a");
    const url = new URL(upload.upload_url);
    await request(app).put(`${url.pathname}?signature=${"0".repeat(64)}`).send(Buffer.from("x")).expect(403);
    await request(app).put(`/uploads/${MISSING}/source.tar.gz?signature=x`).send(Buffer.from("x")).expect(403);
    const res = await request(app).put(url.pathname).send(Buffer.from("x")).expect(422);
    expect(res.body.detail[0]).toMatchObject({ type: "missing", loc: ["query", "signature"] });
  });

  it("is for the CLI's sources: github is 400, a missing deployment 404", async () => {
    const github = (await request(app).get("/v2/deployments?name_contains=support-agent&limit=1").expect(200)).body.resources[0];
    const res = await request(app).post(`/v2/deployments/${github.id}/upload-url`).expect(400);
    expect(res.body.detail).toContain("only available for 'internal_source' and 'internal_docker'");
    await request(app).post(`/v2/deployments/${MISSING}/upload-url`).expect(404, { detail: `Deployment ID ${MISSING} not found.` });
    await request(app).post(`/v2/deployments/${MISSING}/push-token`).expect(404);
  });
});

describe("build and deploy logs", () => {
  it("page with next_offset, filter by level, text and time, and know revisions only of their deployment", async () => {
    // The bundled fixture's failed remote build: logs reconstructed from the revision's timestamps.
    const d = (await request(app).get("/v2/deployments?name_contains=cli-source-agent").expect(200)).body.resources[0];
    const revisions = (await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200)).body.resources;
    const failed = revisions.find((r: { status: string }) => r.status === "BUILD_FAILED");
    const url = `/v1/projects/${d.id}/revisions/${failed.id}/build_logs`;
    const all = (await request(app).post(url).send({ order: "asc" }).expect(200)).body;
    expect(all.logs.at(-1)).toMatchObject({ level: "ERROR" });
    expect(all.next_offset).toBe(String(all.logs.length));
    const stamps = all.logs.map((l: { timestamp: number }) => l.timestamp);
    expect([...stamps].sort((x, y) => x - y)).toEqual(stamps);

    const first = (await request(app).post(url).send({ order: "asc", limit: 2 }).expect(200)).body;
    const rest = (await request(app).post(url).send({ order: "asc", limit: 100, offset: first.next_offset }).expect(200)).body;
    expect([...first.logs, ...rest.logs]).toEqual(all.logs);
    expect((await request(app).post(url).send({ order: "desc", limit: 1 }).expect(200)).body.logs).toEqual([all.logs.at(-1)]);
    expect((await request(app).post(url).send({ level: "error" }).expect(200)).body.logs).toEqual([all.logs.at(-1)]);
    expect((await request(app).post(url).send({ query: "BASE IMAGE" }).expect(200)).body.logs.map((l: { message: string }) => l.message)).toEqual([
      "Pulling base image langchain/langgraph-api",
    ]);
    const cut = new Date(all.logs.at(-1).timestamp).toISOString();
    expect((await request(app).post(url).send({ order: "asc", start_time: cut }).expect(200)).body.logs.at(0)).toEqual(all.logs.at(-1));
    expect((await request(app).post(url).send({ order: "asc", end_time: cut }).expect(200)).body.logs).not.toContainEqual(all.logs.at(-1));
    // No body at all reads as every default.
    expect((await request(app).post(url).expect(200)).body.logs).toHaveLength(all.logs.length);

    const other = (await request(app).get("/v2/deployments?name_contains=support-agent&limit=1").expect(200)).body.resources[0];
    await request(app).post(`/v1/projects/${other.id}/revisions/${failed.id}/build_logs`).send({}).expect(404, { detail: `Revision ID ${failed.id} not found.` });
    await request(app).post(`/v1/projects/${MISSING}/deploy_logs`).send({}).expect(404);
    const bad = await request(app).post(url).send({ order: "up", limit: 0, offset: "x" }).expect(422);
    expect(bad.body.detail.map((e: { loc: unknown[] }) => e.loc.join("."))).toEqual(expect.arrayContaining(["body.order", "body.limit", "body.offset"]));
  });
});
