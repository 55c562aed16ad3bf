import type { MockContext } from "../context.js";
import { getOwn, isPlainObject } from "../core/json.js";
import { object, reply, route, UUID, type RouteSpec } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { IMMUTABLE_FIELDS, NAME_PATTERN, SOURCE_RULES, sourceProblems } from "./deployments-rules.js";
import { schemaKeys, type ConfigObject, type Deployment, type DeploymentSource } from "./deployments-store.js";
import { agentUrl, requireDeployment, toWire, wireText, type Deployments } from "./deployments-service.js";
import { RawJson } from "../http/raw-json.js";
import { listDeployments, type DeploymentListQuery } from "./deployments-query.js";
import { SourceUploads } from "./source-uploads.js";
import { TENANT_HEADER, type TenantHeader } from "./tenant-header.js";
import { integrationsIn } from "./integrations-store.js";

const SCHEMA = "control-plane/deployment.json#/$defs/";

/** The agent-server image version the mock reports for deployments created through the API. */
export const CURRENT_IMAGE_VERSION = "0.4.46";

/** Deployment types default to "dev" where they apply, as the CLI's `--deployment-type` does. */
const DEFAULT_DEPLOYMENT_TYPE = "dev";

interface CreateBody {
  name: string;
  source: DeploymentSource;
  source_config: ConfigObject;
  source_revision_config: ConfigObject;
  secrets: Deployment["secrets"];
  secret_references?: Deployment["secret_references"];
}

interface PatchBody {
  revision_source?: DeploymentSource | null;
  source_config?: ConfigObject | null;
  source_revision_config?: ConfigObject | null;
  secrets?: Deployment["secrets"] | null;
  secret_references?: Deployment["secret_references"];
}

const DEPLOYMENT = `${SCHEMA}Deployment`;
const DEPLOYMENT_PATH = object({ deployment_id: UUID });

/**
 * `/v2/deployments` (control-plane-notes §6, DESIGN §2): list with filters, create, get, patch,
 * delete and bulk delete, scoped by X-Tenant-Id.
 */
export function deploymentsRoutes(ctx: MockContext, deployments: Deployments): RouteSpec[] {
  const { store, lifecycle, tenancy } = deployments;

  return [
    route<{ query: DeploymentListQuery; headers: TenantHeader }>({
      name: "deployments.list",
      method: "GET",
      path: "/v2/deployments",
      query: `${SCHEMA}DeploymentListQuery`,
      headers: TENANT_HEADER,
      responses: { 200: `${SCHEMA}DeploymentsList` },
      handler: ({ query, headers, scope }) => {
        lifecycle.catchUp();
        const page = listDeployments(store, tenancy.tenantOf(headers["x-tenant-id"]), query);
        // Composed from each record's cached text: the bytes `res.json` would write, without
        // serialising 20 unchanged records again on every page (docs/performance.md).
        return new RawJson(`{"resources":[${page.resources.map((d) => wireText(scope, d)).join(",")}],"offset":${JSON.stringify(page.offset)}}`);
      },
    }),
    route<{ headers: TenantHeader; body: CreateBody }>({
      name: "deployments.create",
      method: "POST",
      path: "/v2/deployments",
      headers: TENANT_HEADER,
      body: `${SCHEMA}DeploymentCreateRequest`,
      responses: { 201: DEPLOYMENT },
      handler: ({ headers, body, scope }) => {
        const tenantId = tenancy.tenantOf(headers["x-tenant-id"]);
        if (!NAME_PATTERN.test(body.name)) throw controlPlaneErrors.invalidName(body.name);
        const rule = SOURCE_RULES[body.source];
        const config = configFrom(body.source_config, "SourceConfig");
        // Server-owned for hosted sources: whatever the client sends is replaced below.
        if (rule.hosted) config.custom_url = null;
        if (config.deployment_type === null && rule.config.includes("deployment_type")) config.deployment_type = DEFAULT_DEPLOYMENT_TYPE;
        const revisionConfig: ConfigObject = { ...revisionConfigFrom(body.source_revision_config), repo_commit_sha: commitFor(ctx, body.source) };
        const startsRevision = !rule.firstRevisionWaitsFor || isSet(revisionConfig[rule.firstRevisionWaitsFor]);
        const problem = sourceProblems(body.source, config, revisionConfig, { startsRevision })[0];
        if (problem) throw controlPlaneErrors.sourceConfig(problem.reason);
        new SourceUploads(ctx).requireUploaded(undefined, revisionConfig.source_tarball_path);
        requireIntegration(ctx, config.integration_id);
        if (store.nameTaken(tenantId, body.name)) throw controlPlaneErrors.duplicateName(body.name);

        lifecycle.catchUp();
        const id = ctx.random.uuid4();
        const stamp = ctx.clock.now();
        if (rule.hosted) config.custom_url = agentUrl(scope.baseUrl, id);
        const deployment: Deployment = {
          name: body.name,
          source: body.source,
          source_config: config,
          source_revision_config: revisionConfig,
          secrets: body.secrets,
          secret_references: body.secret_references ?? null,
          id,
          tenant_id: tenantId,
          created_at: stamp,
          updated_at: stamp,
          status: "AWAITING_DATABASE",
          latest_revision_id: null,
          active_revision_id: null,
          image_version: CURRENT_IMAGE_VERSION,
        };
        store.put(deployment, { tag_value_ids: [], remote_reconciled: false, fail_next_at: null }, []);
        if (startsRevision) lifecycle.newRevision(id, body.source, revisionConfig);
        return toWire(scope, store.byId(id) as Deployment);
      },
    }),
    route<{ query: { deployment_ids: string[] }; headers: TenantHeader }>({
      name: "deployments.delete_many",
      method: "DELETE",
      path: "/v2/deployments",
      query: `${SCHEMA}DeploymentBulkDeleteQuery`,
      headers: TENANT_HEADER,
      // 207: some of the ids were not found (each result says which).
      responses: { 200: `${SCHEMA}DeploymentBulkDeleteResult`, 207: `${SCHEMA}DeploymentBulkDeleteResult` },
      handler: ({ query, headers }) => {
        lifecycle.catchUp();
        const tenantId = tenancy.tenantOf(headers["x-tenant-id"]);
        const ids = [...new Set(query.deployment_ids)];
        const missing = ids.filter((id) => !store.get(tenantId, id));
        if (missing.length === ids.length) throw controlPlaneErrors.deploymentsNotFound(missing);
        const results = ids.map((id) => {
          if (missing.includes(id)) {
            const error = controlPlaneErrors.deploymentNotFound(id);
            return { deployment_id: id, status_code: error.status, ...(error.body as { detail: string }) };
          }
          remove(deployments, id);
          return { deployment_id: id, status_code: 204 };
        });
        return missing.length ? reply(207, { results }) : { results };
      },
    }),
    route<{ params: { deployment_id: string }; headers: TenantHeader }>({
      name: "deployments.get",
      method: "GET",
      path: "/v2/deployments/{deployment_id}",
      params: DEPLOYMENT_PATH,
      headers: TENANT_HEADER,
      responses: { 200: DEPLOYMENT },
      handler: ({ params, headers, scope }) => new RawJson(wireText(scope, requireDeployment(deployments, tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id))),
    }),
    route<{ params: { deployment_id: string }; headers: TenantHeader; body: PatchBody }>({
      name: "deployments.update",
      method: "PATCH",
      path: "/v2/deployments/{deployment_id}",
      params: DEPLOYMENT_PATH,
      headers: TENANT_HEADER,
      body: `${SCHEMA}DeploymentPatchRequest`,
      responses: { 200: DEPLOYMENT },
      handler: ({ params, headers, body, scope }) => {
        const deployment = requireDeployment(deployments, tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        refuseImmutableChanges(body, deployment);
        const rule = SOURCE_RULES[deployment.source];
        const config = { ...deployment.source_config };
        for (const [key, value] of Object.entries(configFrom(body.source_config ?? {}, "SourceConfig"))) {
          if (value !== null && !(key === "custom_url" && rule.hosted)) config[key] = value;
        }
        const changes = Object.entries(revisionConfigFrom(body.source_revision_config ?? {})).filter(
          ([key, value]) => value !== null && key !== "repo_commit_sha",
        );
        const revisionSource = body.revision_source ?? deployment.source;
        const newRevision = changes.length > 0 || isSet(body.secrets) || isSet(getOwn(body.source_config, "resource_spec")) || isSet(body.revision_source);
        // A revision of another source starts from a blank configuration: the old source's fields do not apply.
        const base = revisionSource === deployment.source ? deployment.source_revision_config : configFrom({}, "SourceRevisionConfig");
        const revisionConfig: ConfigObject = { ...base, ...Object.fromEntries(changes) };
        if (newRevision) revisionConfig.repo_commit_sha = commitFor(ctx, revisionSource);
        // Without a new revision the stored revision configuration stays: it is checked for the source it was built for.
        const latestSource = (deployment.latest_revision_id && store.revisionOf(deployment.id, deployment.latest_revision_id)?.revision.source) || deployment.source;
        const problem = newRevision
          ? sourceProblems(revisionSource, config, revisionConfig, { deploymentSource: deployment.source })[0]
          : sourceProblems(latestSource, config, deployment.source_revision_config, { startsRevision: false, deploymentSource: deployment.source })[0];
        if (problem) throw controlPlaneErrors.sourceConfig(problem.reason);
        new SourceUploads(ctx).requireUploaded(deployment.id, changes.find(([key]) => key === "source_tarball_path")?.[1]);

        store.update({
          ...deployment,
          source_config: config,
          secrets: body.secrets ?? deployment.secrets,
          secret_references: body.secret_references ?? deployment.secret_references ?? null,
          updated_at: ctx.clock.now(),
        });
        if (newRevision) lifecycle.newRevision(deployment.id, revisionSource, revisionConfig);
        return toWire(scope, store.byId(deployment.id) as Deployment);
      },
    }),
    route<{ params: { deployment_id: string }; query: { delete_tracing_project: boolean }; headers: TenantHeader }>({
      name: "deployments.delete",
      method: "DELETE",
      path: "/v2/deployments/{deployment_id}",
      params: DEPLOYMENT_PATH,
      // There is no tracing project to delete in the mock; the flag is validated and accepted.
      query: `${SCHEMA}DeploymentDeleteQuery`,
      headers: TENANT_HEADER,
      responses: { 204: null },
      handler: ({ params, headers }) => {
        const deployment = requireDeployment(deployments, tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        remove(deployments, deployment.id);
      },
    }),
  ];
}

function remove(deployments: Deployments, id: string): void {
  deployments.lifecycle.forget(id);
  deployments.store.remove(id);
}

/**
 * A stored configuration: every field the schema object declares, null when the request leaves it
 * out. UUID fields arrive lowercase (the registrar canonicalises `format: uuid`).
 */
function configFrom(input: unknown, def: "SourceConfig" | "SourceRevisionConfig"): ConfigObject {
  const out: ConfigObject = {};
  for (const key of schemaKeys(def)) out[key] = getOwn(input, key) ?? null;
  return out;
}

/** The request's revision configuration, with the neutral alias `platform_config_path` read as `langgraph_config_path`. */
function revisionConfigFrom(input: ConfigObject): ConfigObject {
  const config = configFrom(input, "SourceRevisionConfig");
  config.langgraph_config_path ??= getOwn(input, "platform_config_path") ?? null;
  // Read-only: the commit a github revision is built from is the server's to say.
  config.repo_commit_sha = null;
  return config;
}

/** The commit a new github revision is built from (the mock has no repository to read it from). */
export function commitFor(ctx: MockContext, source: DeploymentSource): string | null {
  return source === "github" ? ctx.random.hex(40) : null;
}

/** `integration_id` must name an integration the mock knows (any kind): 400 otherwise (DESIGN §2). */
function requireIntegration(ctx: MockContext, integrationId: unknown): void {
  if (typeof integrationId !== "string") return;
  if (!integrationsIn(ctx).has(integrationId)) throw controlPlaneErrors.unknownIntegration(integrationId);
}

/**
 * 400 naming the first immutable field (notes §6.5) the patch would change; sending the current value
 * is fine. Reads the validated body, which keeps keys the patch schema does not declare (`name`, `source`).
 */
function refuseImmutableChanges(body: PatchBody, deployment: Deployment): void {
  for (const field of IMMUTABLE_FIELDS) {
    const path = field.split(".");
    const sent = valueAt(body, path);
    if (sent !== undefined && sent !== null && JSON.stringify(sent) !== JSON.stringify(valueAt(deployment, path))) {
      throw controlPlaneErrors.immutableField(field);
    }
  }
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) node = isPlainObject(node) ? getOwn(node, key) : undefined;
  return node;
}

function isSet(value: unknown): boolean {
  return value !== null && value !== undefined;
}
