import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/index.js";
import { ReferenceDocument } from "../support/reference-document.js";

/**
 * Every `/v2/auth` operation of the control plane's document (control-plane.openapi.json) is served:
 * each is called for its documented success and, where a request can produce one, its documented 422,
 * and each body is checked against the schema the document gives for that status.
 */
describe("the control plane's /v2/auth operations, one by one, against the reference document", () => {
  const reference = new ReferenceDocument("control-plane.openapi.json");
  const app = createApp({ seed: 9 });
  const seen = new Map<string, Set<number>>();
  /** Operations whose every input is a free string (or absent): no request can make them answer 422. */
  const NO_422_POSSIBLE = [
    "GET /v2/auth/providers",
    "GET /v2/auth/providers/{provider_id}",
    "DELETE /v2/auth/providers/{provider_id}",
    "GET /v2/auth/callback/{provider_id}",
    "GET /v2/auth/tokens",
    "DELETE /v2/auth/tokens/{token_id}",
    "GET /v2/auth/tokens/workspace/slack/exists",
    "DELETE /v2/auth/tokens/workspace/slack",
    "GET /v2/auth/agents/{agent_id}/connections",
    "DELETE /v2/auth/agents/{agent_id}/connections/{connection_id}",
  ];

  async function call(operation: string, url: string, send?: unknown): Promise<request.Response> {
    const [method] = operation.split(" ") as [string];
    const req = request(app)[method.toLowerCase() as "get"](url).set("Host", "mock.test");
    const res = send === undefined ? await req : await req.send(send as object);
    expect(res.status, `${operation} ${url}: ${res.text}`).toBeLessThan(500);
    expect(reference.check(operation, res.status, res.status === 204 ? undefined : res.body), `${operation} ${url}`).toEqual([]);
    (seen.get(operation) ?? seen.set(operation, new Set()).get(operation)!).add(res.status);
    return res;
  }

  /** Opens the authorization URL (the fixture server redirects at once) and returns the callback's path and query. */
  async function authorize(url: string): Promise<string> {
    const target = new URL(url);
    const res = await request(app).get(target.pathname + target.search).set("Host", "mock.test").expect(302);
    const back = new URL(res.headers.location as string);
    return back.pathname + back.search;
  }

  it("answers each documented success and validation error in the documented shapes", async () => {
    const manual = { provider_id: "manual", name: "Manual", client_id: "c", auth_url: "https://example.com/a", token_url: "https://example.com/t" };
    await call("GET /v2/auth/providers", "/v2/auth/providers");
    await call("POST /v2/auth/providers", "/v2/auth/providers", manual);
    await call("POST /v2/auth/providers", "/v2/auth/providers", { provider_id: "x" });
    const mcp = { provider_id: "gh", name: "GH", mcp_server_url: "http://mock.test/_fixtures/mcp/github-tools/mcp" };
    await call("POST /v2/auth/providers/mcp-discover", "/v2/auth/providers/mcp-discover", mcp);
    await call("POST /v2/auth/providers/mcp-discover", "/v2/auth/providers/mcp-discover", { provider_id: "y" });
    await call("GET /v2/auth/providers/{provider_id}", "/v2/auth/providers/gh");
    await call("PATCH /v2/auth/providers/{provider_id}", "/v2/auth/providers/manual", { name: "Renamed" });
    await call("PATCH /v2/auth/providers/{provider_id}", "/v2/auth/providers/manual", { uses_pkce: "sometimes" });
    await call("DELETE /v2/auth/providers/{provider_id}", "/v2/auth/providers/manual");

    // The flow: authenticate → the provider's redirect → callback → wait.
    const started = (await call("POST /v2/auth/authenticate", "/v2/auth/authenticate", { provider: "gh", scopes: ["repo"], agent_id: "agent" })).body;
    expect(started.status).toBe("pending");
    await call("POST /v2/auth/authenticate", "/v2/auth/authenticate", { provider: "gh" });
    await call("GET /v2/auth/wait/{auth_id}", `/v2/auth/wait/${started.auth_id}?timeout=0`);
    await call("GET /v2/auth/wait/{auth_id}", `/v2/auth/wait/${started.auth_id}?timeout=later`);
    const done = (await call("GET /v2/auth/callback/{provider_id}", await authorize(started.url))).body;
    expect((await call("GET /v2/auth/wait/{auth_id}", `/v2/auth/wait/${started.auth_id}`)).body.status).toBe("completed");
    await call("POST /v2/auth/authenticate", "/v2/auth/authenticate", { provider: "gh", scopes: ["repo"], agent_id: "agent" });

    const second = (await call("POST /v2/auth/authenticate", "/v2/auth/authenticate", { provider: "gh", scopes: ["repo"], force_new: true })).body;
    const query = new URLSearchParams((await authorize(second.url)).split("?")[1]);
    await call("POST /v2/auth/callback/{provider_id}", "/v2/auth/callback/gh", { code: query.get("code"), state: query.get("state") });
    await call("POST /v2/auth/callback/{provider_id}", "/v2/auth/callback/gh", { code: "c" });
    const third = (await call("POST /v2/auth/authenticate", "/v2/auth/authenticate", { provider: "gh", scopes: ["repo"], force_new: true })).body;
    await call("GET /v2/auth/setup/{provider_id}", `/v2/auth/setup/gh?${(await authorize(third.url)).split("?")[1]}&setup_action=install&installation_id=7`);
    await call("GET /v2/auth/setup/{provider_id}", "/v2/auth/setup/gh?setup_action=update&installation_id=7");
    await call("GET /v2/auth/setup/{provider_id}", "/v2/auth/setup/gh?installation_id=seven");

    // Tokens and connections.
    await call("GET /v2/auth/tokens", "/v2/auth/tokens");
    await call("GET /v2/auth/tokens/exists", "/v2/auth/tokens/exists?provider_id=gh");
    await call("GET /v2/auth/tokens/exists", "/v2/auth/tokens/exists");
    await call("PATCH /v2/auth/tokens/{token_id}/metadata", `/v2/auth/tokens/${done.token_id}/metadata`, { provider_account_label: "me" });
    await call("PATCH /v2/auth/tokens/{token_id}/metadata", `/v2/auth/tokens/${done.token_id}/metadata`, { is_default: "yes" });
    await call("GET /v2/auth/agents/{agent_id}/connections", "/v2/auth/agents/agent/connections");
    const connection = (await call("POST /v2/auth/agents/{agent_id}/connections", "/v2/auth/agents/other/connections", { oauth_token_id: done.token_id })).body;
    await call("POST /v2/auth/agents/{agent_id}/connections", "/v2/auth/agents/other/connections", {});
    await call("DELETE /v2/auth/agents/{agent_id}/connections/{connection_id}", `/v2/auth/agents/other/connections/${connection.id}`);
    await call("DELETE /v2/auth/tokens/{token_id}", `/v2/auth/tokens/${done.token_id}`);
    await call("DELETE /v2/auth/tokens", "/v2/auth/tokens?provider_id=gh");
    await call("DELETE /v2/auth/tokens", "/v2/auth/tokens");
    await call("GET /v2/auth/tokens/workspace/slack/exists", "/v2/auth/tokens/workspace/slack/exists");
    await call("DELETE /v2/auth/tokens/workspace/slack", "/v2/auth/tokens/workspace/slack");

    // Every /v2/auth operation of the document was called, for a 2xx and (where one can happen) its 422.
    expect([...seen.keys()].sort()).toEqual(reference.operations().filter((o) => o.split(" ")[1]?.startsWith("/v2/auth")).sort());
    for (const [operation, statuses] of seen) {
      expect([...statuses].some((s) => s < 300), `${operation} success`).toBe(true);
      if (!NO_422_POSSIBLE.includes(operation)) expect(statuses.has(422), `${operation} 422`).toBe(true);
    }
  });
});
