import { describe, expect, it } from "vitest";
import request from "supertest";
import type { Express } from "express";
import { createApp } from "../../src/index.js";

const MISSING = "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f";
const newApp = (options = {}) => createApp({ seed: 42, publicUrl: "http://mock.test", ...options });

async function byName(app: Express, name: string) {
  const res = await request(app).get(`/v2/deployments?name_contains=${name}&limit=100`).expect(200);
  const found = res.body.resources.find((d: { name: string }) => d.name === name);
  expect(found).toBeDefined();
  return found;
}

describe("GET /v2/deployments/{id}/revisions", () => {
  it("lists newest first with the next page's offset, walkable one by one", async () => {
    const app = newApp();
    const d = await byName(app, "support-agent");
    const all = await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200);
    expect(all.body.offset).toBe(4);
    expect(all.body.resources.map((r: { status: string }) => r.status)).toEqual(["DEPLOYED", "DEPLOYED", "BUILD_FAILED", "DEPLOYED"]);
    expect(all.body.resources[0].id).toBe(d.latest_revision_id);
    const created = all.body.resources.map((r: { created_at: string }) => r.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const walked = [];
    for (let offset = 0; offset < 5; offset++) {
      const page = await request(app).get(`/v2/deployments/${d.id}/revisions?limit=1&offset=${offset}`).expect(200);
      expect(page.body.offset).toBe(offset + page.body.resources.length);
      walked.push(...page.body.resources);
    }
    expect(walked).toEqual(all.body.resources);
  });

  it("status is a comma-separated list matching any", async () => {
    const app = newApp();
    const d = await byName(app, "support-agent");
    const failed = await request(app).get(`/v2/deployments/${d.id}/revisions?status=BUILD_FAILED,DEPLOY_FAILED`).expect(200);
    expect(failed.body.resources.map((r: { status: string }) => r.status)).toEqual(["BUILD_FAILED"]);
    const deployed = await request(app).get(`/v2/deployments/${d.id}/revisions?status=DEPLOYED&limit=2`).expect(200);
    expect(deployed.body).toMatchObject({ offset: 2 });
    expect(deployed.body.resources.every((r: { status: string }) => r.status === "DEPLOYED")).toBe(true);
  });

  it("remote_reconciled filters on the flag fixtures set", async () => {
    const app = newApp({
      fixtures: ["fixtures", { deployments: [{ name: "reconciled", source: "external_docker", revisions: [{ status: "DEPLOYED", remote_reconciled: true }, { status: "DEPLOYED" }] }] }],
    });
    const d = await byName(app, "reconciled");
    const yes = await request(app).get(`/v2/deployments/${d.id}/revisions?remote_reconciled=true`).expect(200);
    expect(yes.body.resources.map((r: { id: string }) => r.id)).toEqual([d.latest_revision_id]);
    const no = await request(app).get(`/v2/deployments/${d.id}/revisions?remote_reconciled=false`).expect(200);
    expect(no.body.resources).toHaveLength(1);
    expect(no.body.resources[0].id).not.toBe(d.latest_revision_id);
  });

  it("404 for a missing deployment, 422 for bad parameters", async () => {
    const app = newApp();
    await request(app).get(`/v2/deployments/${MISSING}/revisions`).expect(404, { detail: `Deployment ID ${MISSING} not found.` });
    const d = await byName(app, "react-agent");
    await request(app)
      .get(`/v2/deployments/${d.id}/revisions?limit=0`)
      .expect(422, { detail: [{ type: "greater_than_equal", loc: ["query", "limit"], msg: "Input should be greater than or equal to 1", input: 0, ctx: { ge: 1 } }] });
  });
});

describe("FastAPI validates every parameter before looking anything up", () => {
  const uuidIssue = (loc: string[], input: string) => expect.objectContaining({ type: "uuid_parsing", loc, input });

  it("a non-UUID revision_id is 422 even when the deployment does not exist", async () => {
    const app = newApp();
    for (const path of [`/v2/deployments/${MISSING}/revisions/123`, `/v2/deployments/${MISSING}/revisions/123/redeploy`]) {
      const method = path.endsWith("redeploy") ? "post" : "get";
      const res = await request(app)[method](path).expect(422);
      expect(res.body.detail).toEqual([uuidIssue(["path", "revision_id"], "123")]);
    }
  });

  it("every bad parameter is listed in one 422, path first", async () => {
    const app = newApp();
    const both = await request(app).get("/v2/deployments/abc/revisions/123").expect(422);
    expect(both.body.detail).toEqual([uuidIssue(["path", "deployment_id"], "abc"), uuidIssue(["path", "revision_id"], "123")]);
    const list = await request(app).get("/v2/deployments/abc/revisions?limit=0").expect(422);
    expect(list.body.detail).toEqual([uuidIssue(["path", "deployment_id"], "abc"), expect.objectContaining({ type: "greater_than_equal", loc: ["query", "limit"] })]);
    const patch = await request(app).patch("/v2/deployments/abc").send({ secrets: "none" }).expect(422);
    expect(patch.body.detail).toEqual([uuidIssue(["path", "deployment_id"], "abc"), expect.objectContaining({ type: "list_type", loc: ["body", "secrets"] })]);
    const del = await request(app).delete("/v2/deployments/abc?delete_tracing_project=maybe").expect(422);
    expect(del.body.detail).toEqual([uuidIssue(["path", "deployment_id"], "abc"), expect.objectContaining({ type: "bool_parsing", loc: ["query", "delete_tracing_project"] })]);
  });
});

describe("GET /v2/deployments/{id}/revisions/{revision_id}", () => {
  it("answers the revision; another deployment's revision is 404; a non-UUID 422", async () => {
    const app = newApp();
    const a = await byName(app, "react-agent");
    const b = await byName(app, "billing-assistant");
    const res = await request(app).get(`/v2/deployments/${a.id}/revisions/${a.latest_revision_id}`).expect(200);
    expect(Object.keys(res.body)).toEqual(["id", "created_at", "updated_at", "status", "source", "source_revision_config"]);
    expect(res.body).toMatchObject({ id: a.latest_revision_id, status: "DEPLOYED", source: "github", source_revision_config: a.source_revision_config });
    await request(app).get(`/v2/deployments/${a.id}/revisions/${b.latest_revision_id}`).expect(404, { detail: `Revision ID ${b.latest_revision_id} not found.` });
    const bad = await request(app).get(`/v2/deployments/${a.id}/revisions/123`).expect(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ type: "uuid_parsing", loc: ["path", "revision_id"], input: "123" })]);
  });
});

describe("POST /v2/deployments/{id}/revisions/{revision_id}/redeploy", () => {
  it("creates a new revision with the old one's source and configuration", async () => {
    const app = newApp();
    const d = await byName(app, "k8s-support-agent");
    const revisions = (await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200)).body.resources;
    const oldest = revisions[2];
    expect(oldest.source_revision_config.image_uri).toBe("registry.acme.internal/agents/support-agent:2.2.1");
    const res = await request(app).post(`/v2/deployments/${d.id}/revisions/${oldest.id}/redeploy`).expect(200);
    expect(res.body).toMatchObject({ id: d.id, source_revision_config: oldest.source_revision_config, status: "READY" });
    expect(res.body.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(res.body.active_revision_id).toBe(res.body.latest_revision_id);
    const now = (await request(app).get(`/v2/deployments/${d.id}/revisions?limit=1`).expect(200)).body.resources[0];
    expect(now).toMatchObject({ id: res.body.latest_revision_id, status: "DEPLOYED", source_revision_config: oldest.source_revision_config });
    await request(app).get(`/v2/deployments/${d.id}`).expect(200, res.body);
  });

  it("a revision still in flight cannot be redeployed (400); unknown ones are 404", async () => {
    const app = newApp({ lifecycle: "manual" });
    const d = await byName(app, "sales-copilot");
    await request(app)
      .post(`/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`)
      .expect(400, { detail: `Revision ID ${d.latest_revision_id} is still in progress (AWAITING_DEPLOY); only a finished revision can be redeployed.` });
    await request(app).post(`/v2/deployments/${d.id}/revisions/${MISSING}/redeploy`).expect(404, { detail: `Revision ID ${MISSING} not found.` });
    await request(app).post(`/v2/deployments/${MISSING}/revisions/${MISSING}/redeploy`).expect(404, { detail: `Deployment ID ${MISSING} not found.` });
  });
});
