import { describe, expect, it } from "vitest";
import request from "supertest";
import { createApp } from "../../src/index.js";

const ORIGIN = "http://mock.test";
const ACME_CORP = "3b0e7a4c-5f1d-4c8e-9a2b-6d7f8e9a0b1c";
const STAGING = "9b2f4c1e-3d5a-4b7c-8e9f-0a1b2c3d4e5f";
const MISSING = "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f";

const newApp = () => createApp({ seed: 42, publicUrl: ORIGIN });

function githubBody(overrides: Record<string, unknown> = {}) {
  return {
    name: "new-agent",
    source: "github",
    source_config: { integration_id: ACME_CORP, repo_url: "https://github.com/acme-corp/react-agent", deployment_type: "dev", build_on_push: false, custom_url: null, resource_spec: null },
    source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json", image_uri: null },
    secrets: [{ name: "OPENAI_API_KEY", value: "sk-test-123" }],
    ...overrides,
  };
}

const imageBody = (source: string, overrides: Record<string, unknown> = {}) => ({
  name: `${source.replace("_", "-")}-agent`,
  source,
  source_config: {},
  source_revision_config: { image_uri: "docker.io/acme/agent:1.2.0" },
  secrets: [],
  ...overrides,
});

describe("POST /v2/deployments", () => {
  it("creates a github deployment from a repository record listed by the integration endpoint", async () => {
    const app = newApp();
    const repos = await request(app).get(`/v1/integrations/github/${ACME_CORP}/repos`).expect(200);
    const repo = repos.body.find((r: { name: string }) => r.name === "sales-copilot");
    const res = await request(app)
      .post("/v2/deployments")
      .send({
        name: "sales-copilot-eu",
        source: "github",
        source_config: { integration_id: repo.host_integration_id, repo_url: repo.url, deployment_type: "prod" },
        source_revision_config: { repo_ref: repo.default_branch, langgraph_config_path: "langgraph.json" },
        secrets: [],
      })
      .expect("Content-Type", /application\/json/)
      .expect(201);
    const d = res.body;
    expect(d).toMatchObject({
      name: "sales-copilot-eu",
      source: "github",
      source_config: {
        integration_id: ACME_CORP,
        repo_url: "https://github.com/acme-corp/sales-copilot",
        deployment_type: "prod",
        custom_url: `${ORIGIN}/agents/${d.id}`,
        resource_spec: null,
      },
      source_revision_config: { repo_ref: "develop", langgraph_config_path: "langgraph.json", image_uri: null, source_tarball_path: null },
      secrets: [],
      secret_references: null,
      tenant_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      created_at: "2026-01-15T09:00:00.000000+00:00",
      updated_at: "2026-01-15T09:00:00.000000+00:00",
      status: "READY",
      active_revision_id: d.latest_revision_id,
    });
    expect(d.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(d)).toEqual([
      "name", "source", "source_config", "source_revision_config", "secrets", "secret_references", "id", "tenant_id",
      "created_at", "updated_at", "status", "latest_revision_id", "active_revision_id", "image_version",
    ]);
    await request(app).get(`/v2/deployments/${d.id}`).expect(200, d);
    const revision = await request(app).get(`/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`).expect(200);
    expect(revision.body).toEqual({
      id: d.latest_revision_id,
      created_at: d.created_at,
      updated_at: d.created_at,
      status: "DEPLOYED",
      source: "github",
      source_revision_config: d.source_revision_config,
    });
    const listed = await request(app).get("/v2/deployments?name_contains=sales-copilot-eu").expect(200);
    expect(listed.body).toEqual({ resources: [d], offset: 1 });
  });

  it("accepts the neutral alias platform_config_path, and returns secrets as stored", async () => {
    const res = await request(newApp())
      .post("/v2/deployments")
      .send(githubBody({ source_revision_config: { repo_ref: "main", platform_config_path: "apps/agent/langgraph.json" } }))
      .expect(201);
    expect(res.body.source_revision_config.langgraph_config_path).toBe("apps/agent/langgraph.json");
    expect(res.body.source_revision_config).not.toHaveProperty("platform_config_path");
    expect(res.body.secrets).toEqual([{ name: "OPENAI_API_KEY", value: "sk-test-123" }]);
  });

  it("creates image deployments: external_docker keeps its custom_url, internal ones are served by the mock", async () => {
    const app = newApp();
    const external = await request(app)
      .post("/v2/deployments")
      .send(imageBody("external_docker", { source_config: { custom_url: "https://agent.acme.internal", resource_spec: { min_scale: 2, cpu: 1 } } }))
      .expect(201);
    expect(external.body.source_config).toMatchObject({ custom_url: "https://agent.acme.internal", resource_spec: { min_scale: 2, cpu: 1 }, deployment_type: null });
    const internal = await request(app).post("/v2/deployments").send(imageBody("internal_docker")).expect(201);
    expect(internal.body.source_config).toMatchObject({ custom_url: `${ORIGIN}/agents/${internal.body.id}`, deployment_type: "dev" });
    const source = await request(app)
      .post("/v2/deployments")
      .set("X-Tenant-Id", STAGING)
      .send({ name: "uploaded", source: "internal_source", source_config: { deployment_type: "prod" }, source_revision_config: { langgraph_config_path: "langgraph.json" }, secrets: [] })
      .expect(201);
    expect(source.body).toMatchObject({ tenant_id: STAGING, source_config: { deployment_type: "prod" } });
    await request(app).get(`/v2/deployments/${source.body.id}`).expect(404);
    await request(app).get(`/v2/deployments/${source.body.id}`).set("X-Tenant-Id", STAGING).expect(200);
  });

  it("missing fields are 422 as FastAPI lists them", async () => {
    await request(newApp())
      .post("/v2/deployments")
      .send({ name: "x", source: "github" })
      .expect(422, {
        detail: [
          { type: "missing", loc: ["body", "source_config"], msg: "Field required", input: { name: "x", source: "github" } },
          { type: "missing", loc: ["body", "source_revision_config"], msg: "Field required", input: { name: "x", source: "github" } },
          { type: "missing", loc: ["body", "secrets"], msg: "Field required", input: { name: "x", source: "github" } },
        ],
      });
  });

  it("an unknown source is 422 at body.source", async () => {
    const res = await request(newApp()).post("/v2/deployments").send(githubBody({ source: "gitlab" })).expect(422);
    expect(res.body.detail).toEqual([
      {
        type: "enum",
        loc: ["body", "source"],
        msg: "Input should be 'github', 'external_docker', 'internal_docker' or 'internal_source'",
        input: "gitlab",
        ctx: { expected: "'github', 'external_docker', 'internal_docker' or 'internal_source'" },
      },
    ]);
  });

  const badRequests: [string, Record<string, unknown>, number, string][] = [
    ["a name with an underscore", githubBody({ name: "my_agent" }), 400,
      "Invalid deployment name 'my_agent'. Names must start with a lowercase letter and contain only lowercase letters, digits and hyphens (at most 63 characters)."],
    ["a name starting with a digit", githubBody({ name: "1agent" }), 400,
      "Invalid deployment name '1agent'. Names must start with a lowercase letter and contain only lowercase letters, digits and hyphens (at most 63 characters)."],
    ["a duplicate name in the tenant", githubBody({ name: "support-agent" }), 409, "Deployment with name 'support-agent' already exists."],
    ["an unknown integration", githubBody({ source_config: { integration_id: MISSING, repo_url: "https://github.com/x/y" } }), 400, `Integration ID ${MISSING} not found.`],
    ["github without repo_ref", githubBody({ source_revision_config: { langgraph_config_path: "langgraph.json" } }), 400,
      "Source configuration error: 'source_revision_config.repo_ref' is required for 'github' source"],
    ["github without langgraph_config_path", githubBody({ source_revision_config: { repo_ref: "main" } }), 400,
      "Source configuration error: 'source_revision_config.langgraph_config_path' is required for 'github' source"],
    ["github without integration_id", githubBody({ source_config: { repo_url: "https://github.com/x/y" } }), 400,
      "Source configuration error: 'source_config.integration_id' is required for 'github' source"],
    ["a tag ref with build_on_push", githubBody({ source_config: { integration_id: ACME_CORP, repo_url: "https://github.com/acme-corp/x", build_on_push: true }, source_revision_config: { repo_ref: "refs/tags/v1.0.0", langgraph_config_path: "langgraph.json" } }), 400,
      "Source configuration error: 'source_config.build_on_push' must be false when 'source_revision_config.repo_ref' is a tag (refs/tags/...); tags are immutable"],
    ["external_docker without image_uri", imageBody("external_docker", { source_revision_config: {} }), 400,
      "Source configuration error: 'source_revision_config.image_uri' is required for 'external_docker' source"],
    ["a langgraph_config_path on an image source", imageBody("internal_docker", { source_revision_config: { image_uri: "a/b:1", langgraph_config_path: "langgraph.json" } }), 400,
      "Source configuration error: 'source_revision_config.langgraph_config_path' is not applicable for 'internal_docker' source"],
  ];
  for (const [what, body, status, detail] of badRequests) {
    it(`${what} → ${status}`, async () => {
      await request(newApp()).post("/v2/deployments").send(body).expect(status, { detail });
    });
  }

  it("internal_docker may be created without image_uri, as the CLI does: no revision until a PATCH brings the image", async () => {
    const app = newApp();
    const cliCreate = { name: "cli-agent", source: "internal_docker", source_config: { deployment_type: "dev" }, source_revision_config: {}, secrets: [] };
    const d = (await request(app).post("/v2/deployments").send(cliCreate).expect(201)).body;
    expect(d).toMatchObject({ status: "AWAITING_DATABASE", latest_revision_id: null, active_revision_id: null, source_revision_config: { image_uri: null } });
    await request(app).get(`/v2/deployments/${d.id}/revisions?limit=1`).expect(200, { resources: [], offset: 0 });
    await request(app).patch(`/v2/deployments/${d.id}`).send({ source_config: {} }).expect(200);
    await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ secrets: [] })
      .expect(400, { detail: "Source configuration error: 'source_revision_config.image_uri' is required for 'internal_docker' source" });
    const image = "registry.test/acme/cli-agent@sha256:" + "a".repeat(64);
    const patched = await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ source_revision_config: { image_uri: image }, revision_source: "internal_docker", secrets: [], tracked_packages: ["langgraph"] })
      .expect(200);
    expect(patched.body).toMatchObject({ status: "READY", latest_revision_id: expect.any(String), source_revision_config: { image_uri: image } });
    expect(patched.body.active_revision_id).toBe(patched.body.latest_revision_id);
    const latest = await request(app).get(`/v2/deployments/${d.id}/revisions?limit=1`).expect(200);
    expect(latest.body.resources).toMatchObject([{ id: patched.body.latest_revision_id, status: "DEPLOYED", source: "internal_docker" }]);
  });

  it("UUIDs sent in upper case are stored and answered in lower case, as pydantic serializes them", async () => {
    const app = newApp();
    const body = githubBody({ source_config: { integration_id: ACME_CORP.toUpperCase(), repo_url: "https://github.com/acme-corp/react-agent" } });
    const d = (await request(app).post("/v2/deployments").send(body).expect(201)).body;
    expect(d.source_config.integration_id).toBe(ACME_CORP);
  });

  it("the same name is free in another tenant", async () => {
    await request(newApp()).post("/v2/deployments").set("X-Tenant-Id", STAGING).send(githubBody({ name: "support-agent" })).expect(201);
  });
});

describe("GET /v2/deployments/{id}", () => {
  it("404 with the real text; 422 for a non-UUID", async () => {
    const app = newApp();
    await request(app).get(`/v2/deployments/${MISSING}`).expect(404, { detail: `Deployment ID ${MISSING} not found.` });
    await request(app)
      .get("/v2/deployments/not-a-uuid")
      .expect(422, {
        detail: [
          {
            type: "uuid_parsing",
            loc: ["path", "deployment_id"],
            msg: "Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1",
            input: "not-a-uuid",
            ctx: { error: "invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1" },
          },
        ],
      });
  });
});

describe("PATCH /v2/deployments/{id}", () => {
  async function created(app = newApp()) {
    const res = await request(app).post("/v2/deployments").send(githubBody()).expect(201);
    return { app, d: res.body };
  }

  it("a new repo_ref creates a revision and becomes the deployment's configuration", async () => {
    const { app, d } = await created();
    const res = await request(app).patch(`/v2/deployments/${d.id}`).send({ source_revision_config: { repo_ref: "release-2" } }).expect(200);
    expect(res.body.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(res.body.source_revision_config).toMatchObject({ repo_ref: "release-2", langgraph_config_path: "langgraph.json" });
    expect(res.body.source_revision_config.repo_commit_sha).not.toBe(d.source_revision_config.repo_commit_sha);
    const revisions = await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200);
    expect(revisions.body.resources.map((r: { id: string }) => r.id)).toEqual([res.body.latest_revision_id, d.latest_revision_id]);
  });

  it("build_on_push and the commands change without a revision", async () => {
    const { app, d } = await created();
    const res = await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ source_config: { build_on_push: true, install_command: "yarn install" } })
      .expect(200);
    expect(res.body.latest_revision_id).toBe(d.latest_revision_id);
    expect(res.body.source_config).toMatchObject({ build_on_push: true, install_command: "yarn install", custom_url: d.source_config.custom_url });
  });

  it("secrets and resource_spec are replaced, not merged, and create a revision", async () => {
    const app = newApp();
    const d = (await request(app).post("/v2/deployments").send(imageBody("external_docker", { source_config: { resource_spec: { min_scale: 2, cpu: 1 } }, secrets: [{ name: "A", value: "1" }] })).expect(201)).body;
    const res = await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ secrets: [{ name: "B", value: "2" }], source_config: { resource_spec: { max_scale: 5 } } })
      .expect(200);
    expect(res.body.secrets).toEqual([{ name: "B", value: "2" }]);
    expect(res.body.source_config.resource_spec).toEqual({ max_scale: 5 });
    expect(res.body.latest_revision_id).not.toBe(d.latest_revision_id);
  });

  it("sending an immutable field's current value is fine; changing it is 400 naming the field", async () => {
    const { app, d } = await created();
    await request(app).patch(`/v2/deployments/${d.id}`).send({ name: d.name, source_config: { integration_id: ACME_CORP } }).expect(200);
    const upper = await request(app).patch(`/v2/deployments/${d.id}`).send({ source_config: { integration_id: ACME_CORP.toUpperCase() } }).expect(200);
    expect(upper.body.source_config.integration_id).toBe(ACME_CORP);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "renamed" }, "name"],
      [{ source: "external_docker" }, "source"],
      [{ source_config: { repo_url: "https://github.com/acme-corp/other" } }, "source_config.repo_url"],
      [{ source_config: { deployment_type: "prod" } }, "source_config.deployment_type"],
      [{ source_config: { integration_id: "8f2d1c3b-4a5e-4f6d-8b7c-9e0a1b2c3d4e" } }, "source_config.integration_id"],
    ];
    for (const [body, field] of cases) {
      await request(app).patch(`/v2/deployments/${d.id}`).send(body).expect(400, { detail: `Field '${field}' cannot be changed once the deployment is created.` });
    }
  });

  it("revision_source moves a deployment between remote and local builds, as the CLI does, keeping its own source_config", async () => {
    const app = newApp();
    const create = { name: "cli-src", source: "internal_source", source_config: { deployment_type: "dev" }, source_revision_config: {}, secrets: [] };
    const d = (await request(app).post("/v2/deployments").send(create).expect(201)).body;
    const upload = (await request(app).post(`/v2/deployments/${d.id}/upload-url`).expect(200)).body;
    await request(app).put(new URL(upload.upload_url).pathname + new URL(upload.upload_url).search).send(Buffer.from("tarball")).expect(200);
    await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ revision_source: "internal_source", source_revision_config: { source_tarball_path: upload.object_path, langgraph_config_path: "langgraph.json" }, source_config: { install_command: "npm ci" }, secrets: [] })
      .expect(200);
    const image = "registry.test/acme/cli-src:latest";
    const local = await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ source_revision_config: { image_uri: image }, revision_source: "internal_docker", secrets: [] })
      .expect(200);
    expect(local.body).toMatchObject({ source: "internal_source", source_config: { install_command: "npm ci" }, source_revision_config: { image_uri: image, langgraph_config_path: null } });
    const commands = await request(app).patch(`/v2/deployments/${d.id}`).send({ source_config: { build_command: "npm run build" } }).expect(200);
    expect(commands.body.latest_revision_id).toBe(local.body.latest_revision_id);
    const revisions = (await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(200)).body.resources;
    expect(revisions.map((r: { source: string; status: string }) => [r.source, r.status])).toEqual([
      ["internal_docker", "DEPLOYED"],
      ["internal_source", "DEPLOYED"],
    ]);
  });

  it("a patch that breaks the source rules is 400; a malformed one 422; a missing deployment 404", async () => {
    const { app, d } = await created();
    await request(app)
      .patch(`/v2/deployments/${d.id}`)
      .send({ source_config: { build_on_push: true }, source_revision_config: { repo_ref: "refs/tags/v2.0.0" } })
      .expect(400);
    const res = await request(app).patch(`/v2/deployments/${d.id}`).send({ secrets: "none" }).expect(422);
    expect(res.body.detail[0]).toMatchObject({ type: "list_type", loc: ["body", "secrets"], input: "none" });
    await request(app).patch(`/v2/deployments/${MISSING}`).send({}).expect(404, { detail: `Deployment ID ${MISSING} not found.` });
  });
});

describe("DELETE /v2/deployments/{id} and bulk DELETE /v2/deployments", () => {
  it("deletes with 204 and no body; then it is gone", async () => {
    const app = newApp();
    const [d] = (await request(app).get("/v2/deployments?limit=1").expect(200)).body.resources;
    const res = await request(app).delete(`/v2/deployments/${d.id}?delete_tracing_project=true`).expect(204);
    expect(res.text).toBe("");
    await request(app).get(`/v2/deployments/${d.id}`).expect(404);
    await request(app).get(`/v2/deployments/${d.id}/revisions`).expect(404);
    await request(app).delete(`/v2/deployments/${d.id}`).expect(404, { detail: `Deployment ID ${d.id} not found.` });
    await request(app)
      .delete(`/v2/deployments/${MISSING}?delete_tracing_project=perhaps`)
      .expect(422, {
        detail: [{ type: "bool_parsing", loc: ["query", "delete_tracing_project"], msg: "Input should be a valid boolean, unable to interpret input", input: "perhaps" }],
      });
  });

  it("bulk: 200 when all are deleted, 207 with per-id results when some are missing, 404 when none exist", async () => {
    const app = newApp();
    const [a, b, c] = (await request(app).get("/v2/deployments?limit=3").expect(200)).body.resources;
    await request(app)
      .delete(`/v2/deployments?deployment_ids=${a.id}&deployment_ids=${b.id}`)
      .expect(200, { results: [{ deployment_id: a.id, status_code: 204 }, { deployment_id: b.id, status_code: 204 }] });
    await request(app)
      .delete(`/v2/deployments?deployment_ids=${c.id}&deployment_ids=${a.id}`)
      .expect(207, {
        results: [
          { deployment_id: c.id, status_code: 204 },
          { deployment_id: a.id, status_code: 404, detail: `Deployment ID ${a.id} not found.` },
        ],
      });
    await request(app).delete(`/v2/deployments?deployment_ids=${a.id}`).expect(404, { detail: `Deployment ID ${a.id} not found.` });
    const list = await request(app).get(`/v2/deployments?deployment_ids=${a.id},${b.id},${c.id}`).expect(200);
    expect(list.body).toEqual({ resources: [], offset: 0 });
  });

  it("bulk: ids are required UUIDs, at most 100", async () => {
    const app = newApp();
    await request(app)
      .delete("/v2/deployments")
      .expect(422, { detail: [{ type: "missing", loc: ["query", "deployment_ids"], msg: "Field required", input: null }] });
    const res = await request(app).delete(`/v2/deployments?deployment_ids=${MISSING}&deployment_ids=nope`).expect(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ type: "uuid_parsing", loc: ["query", "deployment_ids", 1], input: "nope" }),
    ]);
    const many = Array.from({ length: 101 }, () => `deployment_ids=${MISSING}`).join("&");
    const tooMany = await request(app).delete(`/v2/deployments?${many}`).expect(422);
    expect(tooMany.body.detail[0]).toMatchObject({ type: "too_long", loc: ["query", "deployment_ids"] });
  });

  it("another tenant's deployment cannot be deleted", async () => {
    const app = newApp();
    const [d] = (await request(app).get("/v2/deployments?limit=1").set("X-Tenant-Id", STAGING).expect(200)).body.resources;
    await request(app).delete(`/v2/deployments/${d.id}`).expect(404);
    await request(app).get(`/v2/deployments/${d.id}`).set("X-Tenant-Id", STAGING).expect(200);
  });
});
