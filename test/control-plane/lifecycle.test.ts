import { afterEach, describe, expect, it } from "vitest";
import request from "supertest";
import type { Express } from "express";
import { createApp, mockOf, startMockServer, type MockOptions, type MockServer } from "../../src/index.js";
import { contextOf } from "../../src/mock-control.js";

const ACME_CORP = "3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c";
const START = Date.parse("2026-01-15T09:00:00Z");
const at = (seconds: number) => new Date(START + seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");

const newApp = (options: MockOptions = {}) => createApp({ seed: 42, publicUrl: "http://mock.test", ...options });

const github = (name = "lifecycle-agent") => ({
  name,
  source: "github",
  source_config: { integration_id: ACME_CORP, repo_url: "https://github.com/acme-corp/react-agent", deployment_type: "dev" },
  source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
  secrets: [],
});
const image = (name = "image-agent") => ({ name, source: "internal_docker", source_config: {}, source_revision_config: { image_uri: "acme/agent:1" }, secrets: [] });

async function create(app: Express, body: object) {
  return (await request(app).post("/v2/deployments").send(body).expect(201)).body;
}
async function get(app: Express, id: string) {
  return (await request(app).get(`/v2/deployments/${id}`).expect(200)).body;
}
async function revision(app: Express, deploymentId: string, revisionId: string) {
  return (await request(app).get(`/v2/deployments/${deploymentId}/revisions/${revisionId}`).expect(200)).body;
}
async function byName(app: Express, name: string) {
  const res = await request(app).get(`/v2/deployments?name_contains=${name}&limit=100`).expect(200);
  return res.body.resources.find((d: { name: string }) => d.name === name);
}

describe("immediate (default)", () => {
  it("a new revision is DEPLOYED in the request that creates it", async () => {
    const app = newApp();
    const d = await create(app, github());
    expect(d).toMatchObject({ status: "READY", active_revision_id: d.latest_revision_id, updated_at: at(0) });
    expect(await revision(app, d.id, d.latest_revision_id)).toMatchObject({ status: "DEPLOYED", created_at: at(0), updated_at: at(0) });
  });

  it("fixture revisions listed in flight have settled when the mock starts", async () => {
    const app = newApp();
    const d = await byName(app, "code-review-bot");
    expect(d).toMatchObject({ status: "READY", active_revision_id: d.latest_revision_id, updated_at: at(0) });
    const canary = await byName(app, "support-agent-canary");
    expect((await revision(app, canary.id, canary.latest_revision_id)).status).toBe("BUILD_FAILED");
    expect(canary.active_revision_id).not.toBe(canary.latest_revision_id);
  });
});

describe("timed", () => {
  it("each step lasts lifecycleStep; a poll sees every state, each stamped when it was entered", async () => {
    const app = newApp({ lifecycle: "timed", lifecycleStep: "30s" });
    const d = await create(app, github());
    expect(d).toMatchObject({ status: "AWAITING_DATABASE", active_revision_id: null, latest_revision_id: expect.any(String) });
    const seen: string[] = [];
    for (let step = 0; step < 7; step++) {
      const r = await revision(app, d.id, d.latest_revision_id);
      seen.push(r.status);
      expect(r.updated_at).toBe(at(step * 30));
      mockOf(app).clock.advance("30s");
    }
    expect(seen).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
    expect(await get(app, d.id)).toMatchObject({ status: "READY", active_revision_id: d.latest_revision_id, updated_at: at(180) });
  });

  it("one long jump catches up with every step stamped at its own instant; the database is ready after the first", async () => {
    const app = newApp({ lifecycle: "timed", lifecycleStep: "1m" });
    const d = await create(app, github());
    await request(app).post("/_mock/clock").send({ advance: "59s" }).expect(200);
    expect(await get(app, d.id)).toMatchObject({ status: "AWAITING_DATABASE" });
    await request(app).post("/_mock/clock").send({ advance: "1s" }).expect(200);
    expect(await get(app, d.id)).toMatchObject({ status: "READY", active_revision_id: null, updated_at: at(60) });
    mockOf(app).clock.advance("1h");
    expect(await revision(app, d.id, d.latest_revision_id)).toMatchObject({ status: "DEPLOYED", updated_at: at(360) });
    const list = await request(app).get(`/v2/deployments?deployment_ids=${d.id}`).expect(200);
    expect(list.body.resources[0]).toMatchObject({ active_revision_id: d.latest_revision_id, updated_at: at(360) });
  });

  it("image sources skip the build states", async () => {
    const app = newApp({ lifecycle: "timed", lifecycleStep: "10s" });
    const d = await create(app, image());
    const seen: string[] = [];
    for (let step = 0; step < 5; step++) {
      seen.push((await revision(app, d.id, d.latest_revision_id)).status);
      mockOf(app).clock.advance("10s");
    }
    expect(seen).toEqual(["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
  });

  it("reset() puts fixture revisions in flight back at their start state and their clock", async () => {
    const app = newApp({ lifecycle: "timed", lifecycleStep: "30s" });
    const d = await byName(app, "supervisor-agent");
    const before = await revision(app, d.id, d.latest_revision_id);
    expect(before.status).toBe("AWAITING_BUILD");
    const created = await create(app, github());
    mockOf(app).clock.advance("45s");
    expect((await revision(app, d.id, d.latest_revision_id)).status).toBe("BUILDING");
    await request(app).post("/_mock/reset").send({ scope: "all" }).expect(200);
    expect(await revision(app, d.id, d.latest_revision_id)).toEqual(before);
    expect(await get(app, d.id)).toEqual(d);
    await request(app).get(`/v2/deployments/${created.id}`).expect(404);
    mockOf(app).clock.advance("29s");
    expect((await revision(app, d.id, d.latest_revision_id)).status).toBe("AWAITING_BUILD");
    mockOf(app).clock.advance("1s");
    expect(await revision(app, d.id, d.latest_revision_id)).toMatchObject({ status: "BUILDING", updated_at: at(30) });
  });

  it("list filters see the current state", async () => {
    const app = newApp({ lifecycle: "timed", lifecycleStep: "30s" });
    const d = await create(app, github());
    const waiting = await request(app).get("/v2/deployments?status=AWAITING_DATABASE").expect(200);
    expect(waiting.body.resources.map((x: { id: string }) => x.id)).toContain(d.id);
    mockOf(app).clock.advance("30s");
    const after = await request(app).get("/v2/deployments?status=AWAITING_DATABASE").expect(200);
    expect(after.body.resources.map((x: { id: string }) => x.id)).not.toContain(d.id);
  });
});

describe("manual", () => {
  it("each move of the clock by a test is one step; nothing moves otherwise", async () => {
    const app = newApp({ lifecycle: "manual" });
    const d = await create(app, github());
    const status = async () => (await revision(app, d.id, d.latest_revision_id)).status;
    expect(await status()).toBe("CREATING");
    expect(await status()).toBe("CREATING");
    await request(app).post("/_mock/clock").send({ advance: "5m" }).expect(200);
    expect(await status()).toBe("QUEUED");
    expect(await get(app, d.id)).toMatchObject({ status: "READY", updated_at: at(300) });
    mockOf(app).clock.advance("0s");
    expect(await status()).toBe("AWAITING_BUILD");
    await request(app).post("/_mock/clock").send({ set: "2026-02-01T00:00:00Z" }).expect(200);
    expect(await status()).toBe("BUILDING");
  });

  it("a stream delay's virtual-time jump is not a step", async () => {
    const app = newApp({ lifecycle: "manual" });
    const d = await create(app, github());
    await contextOf(mockOf(app)).clock.sleep(60_000);
    expect(mockOf(app).clock.now().toISOString()).toBe("2026-01-15T09:01:00.000Z");
    expect((await revision(app, d.id, d.latest_revision_id)).status).toBe("CREATING");
  });

  it("POST /_mock/deployments/{id}/advance moves one deployment's revision", async () => {
    const app = newApp({ lifecycle: "manual" });
    const a = await create(app, image("a-agent"));
    const b = await create(app, image("b-agent"));
    await request(app)
      .post(`/_mock/deployments/${a.id}/advance`)
      .send({ steps: 2 })
      .expect(200, { deployment_id: a.id, revision_id: a.latest_revision_id, status: "AWAITING_DEPLOY", in_flight: true });
    expect((await revision(app, b.id, b.latest_revision_id)).status).toBe("CREATING");
    await request(app)
      .post(`/_mock/deployments/${a.id}/advance`)
      .send({ steps: 10 })
      .expect(200, { deployment_id: a.id, revision_id: a.latest_revision_id, status: "DEPLOYED", in_flight: false });
    expect(await get(app, a.id)).toMatchObject({ active_revision_id: a.latest_revision_id });
    await request(app)
      .post(`/_mock/deployments/${a.id}/advance`)
      .expect(409, { detail: `Deployment ${a.id} has no revision in flight (its latest revision is DEPLOYED).` });
    await request(app).post(`/_mock/deployments/${b.id}/advance`).send({ steps: 0 }).expect(422);
    await request(app).post("/_mock/deployments/0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f/advance").expect(404, { detail: "Deployment 0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f not found" });
  });

  it("a newer revision interrupts the one in flight; active_revision_id stays on the deployed one", async () => {
    const app = newApp({ lifecycle: "manual" });
    const d = await create(app, github());
    await request(app).post(`/_mock/deployments/${d.id}/advance`).send({ steps: 6 }).expect(200);
    const second = (await request(app).patch(`/v2/deployments/${d.id}`).send({ source_revision_config: { repo_ref: "feature-a" } }).expect(200)).body;
    mockOf(app).clock.advance("1m");
    const third = (await request(app).patch(`/v2/deployments/${d.id}`).send({ source_revision_config: { repo_ref: "feature-b" } }).expect(200)).body;
    expect(third).toMatchObject({ active_revision_id: d.latest_revision_id, source_revision_config: { repo_ref: "feature-b" } });
    const revisions = (await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200)).body.resources;
    expect(revisions.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([
      [third.latest_revision_id, "CREATING"],
      [second.latest_revision_id, "INTERRUPTED"],
      [d.latest_revision_id, "DEPLOYED"],
    ]);
    expect(revisions[1].updated_at).toBe(at(60));
  });

  it("reset() puts in-flight revisions back where they started", async () => {
    const app = newApp({ lifecycle: "manual" });
    const d = await byName(app, "supervisor-agent");
    const before = await revision(app, d.id, d.latest_revision_id);
    expect(before.status).toBe("AWAITING_BUILD");
    mockOf(app).clock.advance("1s");
    expect((await revision(app, d.id, d.latest_revision_id)).status).toBe("BUILDING");
    mockOf(app).reset();
    expect(await revision(app, d.id, d.latest_revision_id)).toEqual(before);
    mockOf(app).clock.advance("1s");
    expect((await revision(app, d.id, d.latest_revision_id)).status).toBe("BUILDING");
  });
});

describe("scripted failures", () => {
  it("POST /_mock/deployments/{id}/fail makes the revision in flight fail at that step", async () => {
    const app = newApp({ lifecycle: "manual" });
    const d = await create(app, github());
    await request(app)
      .post(`/_mock/deployments/${d.id}/fail`)
      .send({ at: "BUILDING" })
      .expect(200, { deployment_id: d.id, at: "BUILDING", applies_to: "in_flight", revision_id: d.latest_revision_id });
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      mockOf(app).clock.advance("1s");
      seen.push((await revision(app, d.id, d.latest_revision_id)).status);
    }
    expect(seen).toEqual(["QUEUED", "AWAITING_BUILD", "BUILDING", "BUILD_FAILED", "BUILD_FAILED"]);
    expect(await get(app, d.id)).toMatchObject({ status: "READY", active_revision_id: null });
  });

  it("without a revision in flight (or past the step) the failure waits for the next revision", async () => {
    const app = newApp();
    const d = await create(app, image());
    await request(app)
      .post(`/_mock/deployments/${d.id}/fail`)
      .send({ at: "DEPLOYING" })
      .expect(200, { deployment_id: d.id, at: "DEPLOYING", applies_to: "next", revision_id: null });
    const patched = (await request(app).patch(`/v2/deployments/${d.id}`).send({ source_revision_config: { image_uri: "acme/agent:2" } }).expect(200)).body;
    expect(patched.active_revision_id).toBe(d.latest_revision_id);
    expect((await revision(app, d.id, patched.latest_revision_id)).status).toBe("DEPLOY_FAILED");
    const again = (await request(app).post(`/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`).expect(200)).body;
    expect((await revision(app, d.id, again.latest_revision_id)).status).toBe("DEPLOYED");
  });

  it("refuses a step the source never reaches, and a step that is not a step", async () => {
    const app = newApp();
    const d = await create(app, image());
    await request(app)
      .post(`/_mock/deployments/${d.id}/fail`)
      .send({ at: "BUILDING" })
      .expect(400, {
        detail: "A 'internal_docker' revision never reaches BUILDING: image sources skip the build states. Choose one of CREATING, QUEUED, AWAITING_DEPLOY, DEPLOYING.",
      });
    const res = await request(app).post(`/_mock/deployments/${d.id}/fail`).send({ at: "DEPLOYED" }).expect(422);
    expect(res.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "at"], input: "DEPLOYED" });
    await request(app).post("/_mock/deployments/nope/fail").send({ at: "QUEUED" }).expect(400, { detail: 'deployment_id must be a UUID; got "nope"' });
  });

  it("fixtures script failures: fail_at on a revision in flight, fail_next_revision_at for the next one", async () => {
    const app = newApp({ lifecycle: "manual" });
    const canary = await byName(app, "support-agent-canary");
    expect((await revision(app, canary.id, canary.latest_revision_id)).status).toBe("BUILDING");
    mockOf(app).clock.advance("1s");
    expect((await revision(app, canary.id, canary.latest_revision_id)).status).toBe("BUILD_FAILED");
    expect((await get(app, canary.id)).active_revision_id).not.toBe(canary.latest_revision_id);

    const docker = await byName(app, "cli-docker-agent-prod");
    mockOf(app).clock.advance("1s");
    mockOf(app).clock.advance("1s");
    expect((await revision(app, docker.id, docker.latest_revision_id)).status).toBe("DEPLOY_FAILED");
    const next = (await request(app).patch(`/v2/deployments/${docker.id}`).send({ source_revision_config: { image_uri: "acme/x:2" } }).expect(200)).body;
    await request(app).post(`/_mock/deployments/${docker.id}/advance`).send({ steps: 10 }).expect(200);
    expect((await revision(app, docker.id, next.latest_revision_id)).status).toBe("DEPLOY_FAILED");
  });
});

describe("a control-plane client over HTTP", () => {
  let mock: MockServer | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  it("lists, creates from a repository record, polls until DEPLOYED, patches, redeploys and deletes", async () => {
    mock = await startMockServer({ port: 0, seed: 42, lifecycle: "timed", lifecycleStep: "2m" });
    const base = mock.url;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      // Loosely typed on purpose: this is what a plain JSON client sees.
      const json: any = res.status === 204 ? null : await res.json();
      return { status: res.status, body: json };
    };
    const existing = await call("GET", "/v2/deployments?name_contains=research-agent");
    expect(existing.body.resources.map((d: { name: string }) => d.name)).toEqual(["research-agent"]);

    const repo = (await call("GET", "/v1/integrations/github/8f2d1c3b-4a5e-4f6d-8b7c-9e0a1b2c3d4e/repos")).body[0];
    const created = await call("POST", "/v2/deployments", {
      name: "client-flow",
      source: "github",
      source_config: { integration_id: repo.host_integration_id, repo_url: repo.url, deployment_type: "dev", build_on_push: false, custom_url: null, resource_spec: null },
      source_revision_config: { repo_ref: repo.default_branch, langgraph_config_path: "langgraph.json", image_uri: null },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-1" }],
    });
    expect(created.status).toBe(201);
    const d = created.body;
    expect(d.source_config.custom_url).toBe(`${base}/agents/${d.id}`);

    const poll = async (revisionId: string) => {
      const seen: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await call("GET", `/v2/deployments/${d.id}/revisions/${revisionId}`);
        if (seen[seen.length - 1] !== r.body.status) seen.push(r.body.status);
        if (["DEPLOYED", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED"].includes(r.body.status)) return seen;
        mock?.clock.advance("1m");
      }
      return seen;
    };
    expect(await poll(d.latest_revision_id)).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);

    const patched = await call("PATCH", `/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "feature-x" }, secrets: [{ name: "OPENAI_API_KEY", value: "sk-2" }] });
    expect(patched.status).toBe(200);
    expect(await poll(patched.body.latest_revision_id)).toContain("DEPLOYED");

    const redeployed = await call("POST", `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`);
    expect(redeployed.status).toBe(200);
    expect(redeployed.body.source_revision_config.repo_ref).toBe(repo.default_branch);
    expect((await poll(redeployed.body.latest_revision_id)).pop()).toBe("DEPLOYED");
    expect((await call("GET", `/v2/deployments/${d.id}`)).body.active_revision_id).toBe(redeployed.body.latest_revision_id);

    expect((await call("DELETE", `/v2/deployments/${d.id}`)).status).toBe(204);
    expect(await call("GET", `/v2/deployments/${d.id}`)).toEqual({ status: 404, body: { detail: `Deployment ID ${d.id} not found.` } });
  });
});
