import { beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { createApp, mockOf } from "../../src/index.js";

const PRODUCTION = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const STAGING = "9b2f4c1e-3d5a-4b7c-8e9f-0a1b2c3d4e5f";
const SAAS = "0d3c8e1f-2a4b-4c6d-8e0f-1a2b3c4d5e6f";
const MISSING = "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f";
const T0 = "2026-01-15T09:00:00.000000+00:00";

const app = createApp({
  seed: 42,
  fixtures: { tenants: [{ id: PRODUCTION, default: true }, { id: STAGING }, { id: SAAS, listeners: false }] },
});
const cluster = (compute_id = "prod-cluster") => ({ compute_type: "k8s", compute_id, compute_config: { k8s_namespaces: ["agents"] } });

beforeEach(() => mockOf(app).reset());

describe("/v2/listeners", () => {
  it("creates, gets, patches, lists and deletes a listener in the request's workspace", async () => {
    const created = await request(app).post("/v2/listeners").send({ ...cluster(), version: "0.3.1" }).expect(201);
    expect(created.body).toEqual({
      version: "0.3.1",
      compute_type: "k8s",
      compute_id: "prod-cluster",
      compute_config: { k8s_namespaces: ["agents"] },
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: T0,
      updated_at: T0,
    });
    const id = created.body.id;
    expect((await request(app).get(`/v2/listeners/${id}`).expect(200)).body).toEqual(created.body);

    mockOf(app).clock.advance("1m");
    const patched = await request(app).patch(`/v2/listeners/${id}`).send({ compute_config: { k8s_namespaces: ["agents", "batch"] } }).expect(200);
    expect(patched.body).toMatchObject({ version: "0.3.1", compute_config: { k8s_namespaces: ["agents", "batch"] }, created_at: T0, updated_at: "2026-01-15T09:01:00.000000+00:00" });

    // Another workspace sees none of it.
    await request(app).get(`/v2/listeners/${id}`).set("X-Tenant-Id", STAGING).expect(404, { detail: `Listener ID ${id} not found.` });
    expect((await request(app).get("/v2/listeners").set("X-Tenant-Id", STAGING).expect(200)).body).toEqual({ resources: [], offset: 0 });

    await request(app).delete(`/v2/listeners/${id}`).expect(204, "");
    await request(app).get(`/v2/listeners/${id}`).expect(404);
    await request(app).delete(`/v2/listeners/${id}`).expect(404, { detail: `Listener ID ${id} not found.` });
  });

  it("lists newest first, paging with the next page's offset", async () => {
    for (const name of ["a", "b", "c"]) {
      await request(app).post("/v2/listeners").send(cluster(name)).expect(201);
      mockOf(app).clock.advance("1s");
    }
    const all = await request(app).get("/v2/listeners").expect(200);
    expect(all.body.resources.map((l: { compute_id: string }) => l.compute_id)).toEqual(["c", "b", "a"]);
    expect(all.body.offset).toBe(3);
    const second = await request(app).get("/v2/listeners?limit=1&offset=1").expect(200);
    expect(second.body).toMatchObject({ resources: [{ compute_id: "b" }], offset: 2 });
    const bad = await request(app).get("/v2/listeners?limit=0&offset=-1").expect(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([["query", "limit"], ["query", "offset"]]);
  });

  it("a compute id is unique per workspace: 409 with the spec's text", async () => {
    await request(app).post("/v2/listeners").send(cluster()).expect(201);
    await request(app)
      .post("/v2/listeners")
      .send(cluster())
      .expect(409, { detail: `Listener for LangSmith workspace ID '${PRODUCTION}' and compute ID 'prod-cluster' already exists.` });
    await request(app).post("/v2/listeners").set("X-Tenant-Id", STAGING).send(cluster()).expect(201);
  });

  it("a workspace without listeners in its plan is 403 on every route", async () => {
    const forbidden = {
      detail: `Listeners cannot be created for LangSmith workspace ID '${SAAS}'. Creating listeners is only allowed for LangSmith organizations with self-hosted enterprise plans.`,
    };
    await request(app).get("/v2/listeners").set("X-Tenant-Id", SAAS).expect(403, forbidden);
    await request(app).post("/v2/listeners").set("X-Tenant-Id", SAAS).send(cluster()).expect(403, forbidden);
    await request(app).get(`/v2/listeners/${MISSING}`).set("X-Tenant-Id", SAAS).expect(403, forbidden);
    await request(app).patch(`/v2/listeners/${MISSING}`).set("X-Tenant-Id", SAAS).send({}).expect(403, forbidden);
    await request(app).delete(`/v2/listeners/${MISSING}`).set("X-Tenant-Id", SAAS).expect(403, forbidden);
  });

  it("validates bodies and ids as FastAPI does", async () => {
    const res = await request(app).post("/v2/listeners").send({ compute_type: "ecs", compute_config: {} }).expect(422);
    const problems = res.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]);
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(expect.arrayContaining([["literal_error", ["body", "compute_type"]], ["missing", ["body", "compute_id"]]]));
    await request(app).get("/v2/listeners/not-a-uuid").expect(422);
  });
});
