import request from "supertest";
import { describe, expect, it } from "vitest";
import { BUNDLED_FIXTURES, createApp } from "../../src/index.js";
import { ReferenceDocument } from "../support/reference-document.js";

/**
 * Every operation of the control plane's document (control-plane.openapi.json) that the mock serves
 * is called for each response the document declares — success and errors — and each body is checked
 * against the document: its schema, or for the errors it gives only as an example, the example's
 * shape and text. The agent-auth flow's operations (`/v2/auth/…` beyond providers) are walked by
 * their own work and skipped here; the last assertion says which operations are left.
 */
const AUTH_FLOW = /^(GET|POST|DELETE|PATCH) \/v2\/auth\/(setup|callback|authenticate|wait|tokens|agents)/;

describe("the control-plane document, operation by operation", () => {
  const reference = new ReferenceDocument("control-plane.openapi.json");
  const SAAS = "0d3c8e1f-2a4b-4c6d-8e0f-1a2b3c4d5e6f";
  const MISSING = "0cf1e2a0-1b2c-4d3e-8f40-5a6b7c8d9e0f";
  const GITHUB_INTEGRATION = "8f2d1c3b-4a5e-4f6d-8b7c-9e0a1b2c3d4e";
  const FORGE_INTEGRATION = "c6a4e2f0-1b3d-4e5f-a7b9-c1d3e5f7a9b2";
  // Manual lifecycle: a new revision stays in flight until the clock moves, so a redeploy of it is the documented 400.
  const app = createApp({ seed: 12, lifecycle: "manual", fixtures: [BUNDLED_FIXTURES, { tenants: [{ id: SAAS, listeners: false }] }] });
  const seen = new Map<string, Set<number>>();

  async function call(operation: string, url: string, options: { send?: unknown; tenant?: string } = {}): Promise<request.Response> {
    const [method] = operation.split(" ") as [string];
    let req = request(app)[method.toLowerCase() as "get"](url).set("Host", "mock.test");
    if (options.tenant) req = req.set("X-Tenant-Id", options.tenant);
    const res = options.send === undefined ? await req : await req.send(options.send as object);
    expect(reference.check(operation, res.status, res.status === 204 ? undefined : res.body), `${operation} ${url} → ${res.status} ${JSON.stringify(res.body)}`).toEqual([]);
    (seen.get(operation) ?? seen.set(operation, new Set()).get(operation)!).add(res.status);
    return res;
  }

  it("answers each documented response in the documented shape", async () => {
    // Integrations
    await call("GET /v1/integrations/github/install", "/v1/integrations/github/install");
    const repo = (await call("GET /v1/integrations/github/{integration_id}/repos", `/v1/integrations/github/${GITHUB_INTEGRATION}/repos`)).body[0];
    await call("GET /v1/integrations/github/{integration_id}/repos", "/v1/integrations/github/nope/repos");
    await call("GET /v1/integrations/forge/github/install", "/v1/integrations/forge/github/install");
    await call("GET /v1/integrations/forge/github/{integration_id}/repos", `/v1/integrations/forge/github/${FORGE_INTEGRATION}/repos`);
    await call("GET /v1/integrations/forge/github/{integration_id}/repos", "/v1/integrations/forge/github/nope/repos");

    // Deployments
    const create = {
      name: "walked",
      source: "github",
      source_config: { integration_id: repo.host_integration_id, repo_url: repo.url, deployment_type: "dev" },
      source_revision_config: { repo_ref: repo.default_branch, langgraph_config_path: "langgraph.json" },
      secrets: [],
    };
    const d = (await call("POST /v2/deployments", "/v2/deployments", { send: create })).body;
    await call("POST /v2/deployments", "/v2/deployments", { send: { ...create, name: "Not_A_Name" } });
    await call("POST /v2/deployments", "/v2/deployments", { send: { name: "x" } });
    await call("GET /v2/deployments", "/v2/deployments?name_contains=agent&limit=5");
    await call("GET /v2/deployments", "/v2/deployments?limit=0");
    await call("GET /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}`);
    await call("GET /v2/deployments/{deployment_id}", `/v2/deployments/${MISSING}`);
    await call("GET /v2/deployments/{deployment_id}", "/v2/deployments/nope");
    await call("PATCH /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}`, { send: { source_config: { build_on_push: true } } });
    await call("PATCH /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}`, { send: { source_config: { repo_url: "https://github.com/x/y" } } });
    await call("PATCH /v2/deployments/{deployment_id}", `/v2/deployments/${MISSING}`, { send: {} });
    await call("PATCH /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}`, { send: { secrets: "none" } });

    // Revisions: the new one is in flight (manual lifecycle); a fixture's settled one can be redeployed.
    await call("GET /v2/deployments/{deployment_id}/revisions", `/v2/deployments/${d.id}/revisions`);
    await call("GET /v2/deployments/{deployment_id}/revisions", `/v2/deployments/${MISSING}/revisions`);
    await call("GET /v2/deployments/{deployment_id}/revisions", `/v2/deployments/${d.id}/revisions?limit=101`);
    await call("GET /v2/deployments/{deployment_id}/revisions/{revision_id}", `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`);
    await call("GET /v2/deployments/{deployment_id}/revisions/{revision_id}", `/v2/deployments/${MISSING}/revisions/${d.latest_revision_id}`);
    await call("GET /v2/deployments/{deployment_id}/revisions/{revision_id}", `/v2/deployments/${d.id}/revisions/nope`);
    const redeploy = "POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy";
    await call(redeploy, `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`);
    const settled = (await call("GET /v2/deployments", "/v2/deployments?name_contains=sql-agent")).body.resources[0];
    await call(redeploy, `/v2/deployments/${settled.id}/revisions/${settled.latest_revision_id}/redeploy`);
    await call(redeploy, `/v2/deployments/${MISSING}/revisions/${settled.latest_revision_id}/redeploy`);
    await call(redeploy, `/v2/deployments/${settled.id}/revisions/nope/redeploy`);

    await call("DELETE /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}`);
    await call("DELETE /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}`);
    await call("DELETE /v2/deployments/{deployment_id}", `/v2/deployments/${d.id}?delete_tracing_project=maybe`);
    await call("DELETE /v2/deployments", `/v2/deployments?deployment_ids=${settled.id}`);
    await call("DELETE /v2/deployments", `/v2/deployments?deployment_ids=${MISSING}`);
    await call("DELETE /v2/deployments", "/v2/deployments");

    // Listeners, and a workspace whose plan has none (403).
    const listener = { compute_type: "k8s", compute_id: "cluster-1", compute_config: { k8s_namespaces: ["agents"] } };
    const l = (await call("POST /v2/listeners", "/v2/listeners", { send: listener })).body;
    await call("POST /v2/listeners", "/v2/listeners", { send: listener });
    await call("POST /v2/listeners", "/v2/listeners", { send: listener, tenant: SAAS });
    await call("POST /v2/listeners", "/v2/listeners", { send: { compute_type: "ecs" } });
    await call("GET /v2/listeners", "/v2/listeners");
    await call("GET /v2/listeners", "/v2/listeners?offset=-1");
    for (const [operation, send] of [["GET /v2/listeners/{listener_id}", undefined], ["PATCH /v2/listeners/{listener_id}", { version: "1.2.0" }]] as const) {
      await call(operation, `/v2/listeners/${l.id}`, { send });
      await call(operation, `/v2/listeners/${l.id}`, { send, tenant: SAAS });
      await call(operation, `/v2/listeners/${MISSING}`, { send });
      await call(operation, "/v2/listeners/nope", { send });
    }
    await call("DELETE /v2/listeners/{listener_id}", `/v2/listeners/${l.id}`, { tenant: SAAS });
    await call("DELETE /v2/listeners/{listener_id}", `/v2/listeners/${l.id}`);
    await call("DELETE /v2/listeners/{listener_id}", `/v2/listeners/${l.id}`);
    await call("DELETE /v2/listeners/{listener_id}", "/v2/listeners/nope");

    // OAuth providers. A `{provider_id}` is any text, so GET and DELETE of one have no 422 to produce.
    await call("GET /v2/auth/providers", "/v2/auth/providers");
    const provider = { provider_id: "walked", name: "Walked", client_id: "c", auth_url: "https://idp.test/authorize", token_url: "https://idp.test/token" };
    await call("POST /v2/auth/providers", "/v2/auth/providers", { send: provider });
    await call("POST /v2/auth/providers", "/v2/auth/providers", { send: { provider_id: "half" } });
    await call("POST /v2/auth/providers/mcp-discover", "/v2/auth/providers/mcp-discover", {
      send: { provider_id: "walked-mcp", name: "Walked MCP", mcp_server_url: "http://mock.test/_fixtures/mcp/github-tools/mcp" },
    });
    await call("POST /v2/auth/providers/mcp-discover", "/v2/auth/providers/mcp-discover", { send: { provider_id: "x" } });
    await call("GET /v2/auth/providers/{provider_id}", "/v2/auth/providers/walked");
    await call("PATCH /v2/auth/providers/{provider_id}", "/v2/auth/providers/walked", { send: { name: "Renamed" } });
    await call("PATCH /v2/auth/providers/{provider_id}", "/v2/auth/providers/walked", { send: { uses_pkce: "sometimes" } });
    await call("DELETE /v2/auth/providers/{provider_id}", "/v2/auth/providers/walked");

    // Every documented status of every walked operation was produced (but the two 422s no input can cause).
    const unreachable = new Set(["GET /v2/auth/providers/{provider_id} 422", "DELETE /v2/auth/providers/{provider_id} 422"]);
    for (const [operation, statuses] of seen) {
      const [method, path] = operation.split(" ") as [string, string];
      const documented = Object.keys(reference.doc.paths[path]![method.toLowerCase()]!.responses).map(Number);
      expect(documented.filter((s) => !statuses.has(s) && !unreachable.has(`${operation} ${s}`)), operation).toEqual([]);
    }
    // Every operation of the document is walked here, but the agent-auth flow's.
    const left = reference.operations().filter((op) => !seen.has(op));
    expect(left.filter((op) => !AUTH_FLOW.test(op))).toEqual([]);
  });
});
