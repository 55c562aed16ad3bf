import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";

/**
 * `langgraph deploy` as the CLI drives it (libs/cli/langgraph_cli/deploy.py and host_backend.py),
 * over HTTP against a running mock with an API key, in timed lifecycle mode: the test is the CLI's
 * poll loop and moves the mock's clock by the CLI's poll interval instead of sleeping.
 */
const API_KEY = "lsv2_pt_deploy_flow";
const TERMINAL = ["DEPLOYED", "CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED", "SKIPPED"];
const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]);

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 10, apiKey: API_KEY, lifecycle: "timed", lifecycleStep: "30s" });
});
afterAll(() => mock.close());

/** HostBackendClient: JSON with X-Api-Key; a failure is an error carrying status and body, as the CLI raises it. */
async function cli(method: string, path: string, payload?: unknown): Promise<any> {
  const res = await fetch(`${mock.url}${path}`, {
    method,
    headers: { "X-Api-Key": API_KEY, Accept: "application/json", ...(payload === undefined ? {} : { "Content-Type": "application/json" }) },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await res.text();
  if (res.status >= 400) throw Object.assign(new Error(`${method} ${path} failed with status ${res.status}: ${text}`), { status: res.status });
  return text ? JSON.parse(text) : null;
}

/** `_poll_revision_status` with `on_poll`: the statuses seen, calling `onPoll` after each poll, `interval` of mock time apart. */
async function pollRevision(deploymentId: string, interval: string, onPoll?: (status: string, revisionId: string) => Promise<void>) {
  const revisionId = (await cli("GET", `/v2/deployments/${deploymentId}/revisions?limit=1`)).resources[0].id as string;
  const seen: string[] = [];
  for (let polls = 0; polls < 200; polls++) {
    const status = (await cli("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`)).status as string;
    if (seen[seen.length - 1] !== status) seen.push(status);
    if (TERMINAL.includes(status)) break;
    await onPoll?.(status, revisionId);
    mock.clock.advance(interval);
  }
  return { seen, revisionId };
}

describe("langgraph deploy against the mock", () => {
  it("remote build: create → upload-url → PUT the tarball → PATCH → build logs while building → DEPLOYED", async () => {
    // 1. Look the deployment up by name (none yet), 2. create it as the CLI does.
    expect((await cli("GET", "/v2/deployments?name_contains=remote-agent")).resources).toEqual([]);
    const created = await cli("POST", "/v2/deployments", {
      name: "remote-agent",
      source: "internal_source",
      source_config: { deployment_type: "dev" },
      source_revision_config: {},
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-test" }],
    });
    expect(created).toMatchObject({ source: "internal_source", status: "AWAITING_DATABASE", latest_revision_id: null });

    // 3. Upload URL, then the upload: a plain PUT with the CLI's headers and no API key.
    const upload = await cli("POST", `/v2/deployments/${created.id}/upload-url`);
    expect(upload.upload_url.startsWith(`${mock.url}/${upload.object_path}?`)).toBe(true);
    const put = await fetch(upload.upload_url, {
      method: "PUT",
      headers: { "Content-Type": "application/gzip", "Content-Length": String(TARBALL.length), "X-Goog-Content-Length-Range": "0,209715200" },
      body: TARBALL,
    });
    expect(put.status).toBe(200);

    // 4. Trigger the remote build.
    const updated = await cli("PATCH", `/v2/deployments/${created.id}`, {
      revision_source: "internal_source",
      source_revision_config: { source_tarball_path: upload.object_path, langgraph_config_path: "langgraph.json" },
      tracked_packages: ["langgraph"],
      source_config: { install_command: "pip install -e ." },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-test" }],
    });
    expect(updated.source_revision_config).toMatchObject({ source_tarball_path: upload.object_path, langgraph_config_path: "langgraph.json" });

    // 5. Poll every 3 s (the CLI's interval for remote builds), streaming build logs while building (--verbose).
    let offset: string | undefined;
    const printed: string[] = [];
    const { seen, revisionId } = await pollRevision(created.id, "3s", async (status, revisionId) => {
      if (status !== "AWAITING_BUILD" && status !== "BUILDING") return;
      const page = await cli("POST", `/v1/projects/${created.id}/revisions/${revisionId}/build_logs`, offset ? { order: "asc", limit: 50, offset } : { order: "asc", limit: 50 });
      printed.push(...page.logs.map((entry: { message: string }) => entry.message));
      offset = page.next_offset || offset;
    });
    expect(seen).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
    expect(revisionId).toBe(updated.latest_revision_id);
    // Every line once, in order, as the build went; the last one written after the build left BUILDING is not polled for.
    expect(printed).toEqual([
      `Build of revision ${revisionId} queued`,
      `Fetching source ${upload.object_path}`,
      "Reading langgraph.json",
      "Pulling base image langchain/langgraph-api",
      "Running install command: pip install -e .",
      "Building image",
    ]);
    const whole = await cli("POST", `/v1/projects/${created.id}/revisions/${revisionId}/build_logs`, { order: "asc", limit: 50 });
    expect(whole.logs.map((entry: { message: string }) => entry.message)).toEqual([...printed, "Build completed; image pushed"]);

    // 6. The result: the deployment is served by the mock, and its runtime log shows the start.
    const deployment = await cli("GET", `/v2/deployments/${created.id}`);
    expect(deployment).toMatchObject({ status: "READY", active_revision_id: revisionId, source_config: { custom_url: `${mock.url}/agents/${created.id}` } });
    const runtime = await cli("POST", `/v1/projects/${created.id}/deploy_logs`, { limit: 100, order: "desc" });
    expect(runtime.logs.map((entry: { message: string }) => entry.message)).toEqual([
      `Revision ${revisionId} is live`,
      "Application startup complete.",
      "Starting agent server",
      `Deploying revision ${revisionId}`,
    ]);
  });

  it("a failed remote build: the CLI's last 30 lines (desc) end with the failure", async () => {
    const created = await cli("POST", "/v2/deployments", { name: "broken-build", source: "internal_source", source_config: { deployment_type: "dev" }, source_revision_config: {}, secrets: [] });
    const upload = await cli("POST", `/v2/deployments/${created.id}/upload-url`);
    expect((await fetch(upload.upload_url, { method: "PUT", headers: { "Content-Type": "application/gzip" }, body: TARBALL })).status).toBe(200);
    await cli("PATCH", `/v2/deployments/${created.id}`, { revision_source: "internal_source", source_revision_config: { source_tarball_path: upload.object_path, langgraph_config_path: "langgraph.json" }, secrets: [] });
    const scripted = await fetch(`${mock.url}/_mock/deployments/${created.id}/fail`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ at: "BUILDING" }) });
    expect(scripted.status).toBe(200);

    const { seen, revisionId } = await pollRevision(created.id, "3s");
    expect(seen.pop()).toBe("BUILD_FAILED");
    const last = await cli("POST", `/v1/projects/${created.id}/revisions/${revisionId}/build_logs`, { order: "desc", limit: 30 });
    expect(last.logs[0]).toMatchObject({ level: "ERROR", message: "Build failed: the image build exited with code 1" });
    expect(last.logs.map((entry: { message: string }) => entry.message).reverse().slice(-2)).toEqual(["Building image", "Build failed: the image build exited with code 1"]);
    expect((await cli("POST", `/v1/projects/${created.id}/revisions/${revisionId}/deploy_logs`, {})).logs).toEqual([]);
  });

  it("local build: create → push-token → PATCH image_uri → DEPLOYED without build logs", async () => {
    const created = await cli("POST", "/v2/deployments", { name: "local-agent", source: "internal_docker", source_config: { deployment_type: "prod" }, source_revision_config: {}, secrets: [] });
    const push = await cli("POST", `/v2/deployments/${created.id}/push-token`);
    expect(push).toEqual({ token: expect.stringMatching(/^mock-push-[0-9a-f]{48}$/), registry_url: `https://registry.agent-platform-mock.invalid/${created.tenant_id}/${created.id}` });
    const image = `registry.agent-platform-mock.invalid/${created.tenant_id}/${created.id}/local-agent@sha256:${"ab".repeat(32)}`;
    await cli("PATCH", `/v2/deployments/${created.id}`, { source_revision_config: { image_uri: image }, revision_source: "internal_docker", secrets: [] });
    const { seen, revisionId } = await pollRevision(created.id, "1s");
    expect(seen).toEqual(["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
    expect((await cli("POST", `/v1/projects/${created.id}/revisions/${revisionId}/build_logs`, { order: "asc", limit: 50 })).logs).toEqual([]);
    const deploy = await cli("POST", `/v1/projects/${created.id}/revisions/${revisionId}/deploy_logs`, { order: "asc", limit: 2 });
    expect(deploy.logs.map((entry: { message: string }) => entry.message)).toEqual([`Deploying revision ${revisionId}`, `Pulling image ${image}`]);
    expect(deploy.next_offset).toBe("2");
  });

  it("push-token on a deployment the CLI did not create is the 400 the CLI recognises", async () => {
    const created = await cli("POST", "/v2/deployments", { name: "not-docker", source: "internal_source", source_config: {}, source_revision_config: {}, secrets: [] });
    const error = await cli("POST", `/v2/deployments/${created.id}/push-token`).catch((e: Error & { status: number }) => e);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining("only available for 'internal_docker' source deployments") });
  });
});
