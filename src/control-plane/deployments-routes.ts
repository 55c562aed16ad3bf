import type { Request } from "express";
import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { formatTimestamp } from "../core/clock.js";
import { getOwn, isPlainObject } from "../core/json.js";
import { isUuid } from "../core/random.js";
import { validateBody, validateQuery } from "../http/validate.js";
import type { ControlPlaneRoutes } from "./index.js";
import type { Tenancy } from "./tenancy.js";
import { controlPlaneErrors } from "./errors.js";
import { IMMUTABLE_FIELDS, NAME_PATTERN, SOURCE_RULES, sourceProblems } from "./deployments-rules.js";
import { schemaKeys, uuidKeys, type ConfigObject, type Deployment, type DeploymentSource } from "./deployments-store.js";
import { agentUrl, createDeployments, deploymentIdOf, requireDeployment, toWire, validateRequest, type Deployments } from "./deployments-service.js";
import { listDeployments, type DeploymentListQuery } from "./deployments-query.js";
import { loadDeploymentFixtures } from "./deployments-fixtures.js";
import { integrationCollection } from "./integrations-store.js";

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

/**
 * `/v2/deployments` (control-plane-notes §6, DESIGN §2): list with filters, create, get, patch,
 * delete and bulk delete, scoped by X-Tenant-Id. Seeds the store from the `deployments` and
 * `generate.deployments` fixture sections.
 */
export function deploymentsRoutes(ctx: MockContext, on: ControlPlaneRoutes, fixtures: FixtureSet, tenancy: Tenancy): void {
  const deployments = createDeployments(ctx, tenancy);
  const { store, lifecycle } = deployments;
  loadDeploymentFixtures(ctx, fixtures, deployments);

  on.get("/v2/deployments", (req, res) => {
    const query = validateQuery<DeploymentListQuery>(`${SCHEMA}DeploymentListQuery`, req.query);
    lifecycle.catchUp();
    const page = listDeployments(store, tenancy.tenantOf(req), query);
    res.json({ resources: page.resources.map((d) => toWire(ctx, req, d)), offset: page.offset });
  });

  on.post("/v2/deployments", (req, res) => {
    const body = validateBody<CreateBody>(`${SCHEMA}DeploymentCreateRequest`, req.body);
    const tenantId = tenancy.tenantOf(req);
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
    requireIntegration(ctx, config.integration_id);
    if (store.nameTaken(tenantId, body.name)) throw controlPlaneErrors.duplicateName(body.name);

    lifecycle.catchUp();
    const id = ctx.random.uuid4();
    const stamp = formatTimestamp(ctx.clock.now());
    if (rule.hosted) config.custom_url = agentUrl(ctx.baseUrl(req), id);
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
    store.put(deployment, { tag_value_ids: [], remote_reconciled: false, revision_ids: [], fail_next_at: null });
    if (startsRevision) lifecycle.newRevision(id, body.source, revisionConfig);
    res.status(201).json(toWire(ctx, req, store.deployments.get(id) as Deployment));
  });

  on.delete("/v2/deployments", (req, res) => {
    const query = validateQuery<{ deployment_ids: string[] }>(`${SCHEMA}DeploymentBulkDeleteQuery`, req.query);
    lifecycle.catchUp();
    const tenantId = tenancy.tenantOf(req);
    const ids = [...new Set(query.deployment_ids.map((id) => id.toLowerCase()))];
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
    res.status(missing.length ? 207 : 200).json({ results });
  });

  on.get("/v2/deployments/:deployment_id", (req, res) => {
    res.json(toWire(ctx, req, requireDeployment(deployments, req)));
  });

  on.patch("/v2/deployments/:deployment_id", (req, res) => {
    // FastAPI validates the request before the handler looks anything up: 422 comes before 404.
    const [id, body] = validateRequest(() => deploymentIdOf(req), () => validateBody<PatchBody>(`${SCHEMA}DeploymentPatchRequest`, req.body));
    const deployment = requireDeployment(deployments, req, id);
    refuseImmutableChanges(req, deployment);
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
    const latestSource = (deployment.latest_revision_id && store.revisions.get(deployment.latest_revision_id)?.revision.source) || deployment.source;
    const problem = newRevision
      ? sourceProblems(revisionSource, config, revisionConfig, { deploymentSource: deployment.source })[0]
      : sourceProblems(latestSource, config, deployment.source_revision_config, { startsRevision: false, deploymentSource: deployment.source })[0];
    if (problem) throw controlPlaneErrors.sourceConfig(problem.reason);

    store.update({
      ...deployment,
      source_config: config,
      secrets: body.secrets ?? deployment.secrets,
      secret_references: body.secret_references ?? deployment.secret_references ?? null,
      updated_at: formatTimestamp(ctx.clock.now()),
    });
    if (newRevision) lifecycle.newRevision(deployment.id, revisionSource, revisionConfig);
    res.json(toWire(ctx, req, store.deployments.get(deployment.id) as Deployment));
  });

  on.delete("/v2/deployments/:deployment_id", (req, res) => {
    // There is no tracing project to delete in the mock; the flag is validated and accepted.
    const [id] = validateRequest(() => deploymentIdOf(req), () => validateQuery(`${SCHEMA}DeploymentDeleteQuery`, req.query));
    const deployment = requireDeployment(deployments, req, id);
    remove(deployments, deployment.id);
    res.status(204).end();
  });
}

function remove(deployments: Deployments, id: string): void {
  deployments.lifecycle.forget(id);
  deployments.store.remove(id);
}

/** A stored configuration: every field the schema object declares, null when the request leaves it out. */
function configFrom(input: unknown, def: "SourceConfig" | "SourceRevisionConfig"): ConfigObject {
  const out: ConfigObject = {};
  const uuids = uuidKeys(def);
  for (const key of schemaKeys(def)) {
    const value = getOwn(input, key) ?? null;
    out[key] = uuids.has(key) && typeof value === "string" ? value.toLowerCase() : value;
  }
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
  if (!integrationCollection(ctx).has(integrationId.toLowerCase())) throw controlPlaneErrors.unknownIntegration(integrationId);
}

/** 400 naming the first immutable field (notes §6.5) the patch would change; sending the current value is fine. */
function refuseImmutableChanges(req: Request, deployment: Deployment): void {
  for (const field of IMMUTABLE_FIELDS) {
    const path = field.split(".");
    const sent = valueAt(req.body, path);
    if (sent !== undefined && sent !== null && JSON.stringify(canonical(sent)) !== JSON.stringify(valueAt(deployment, path))) {
      throw controlPlaneErrors.immutableField(field);
    }
  }
}

/** Stored UUIDs are lowercase; a client may send any case (pydantic reads both as the same UUID). */
function canonical(value: unknown): unknown {
  return typeof value === "string" && isUuid(value) ? value.toLowerCase() : value;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) node = isPlainObject(node) ? getOwn(node, key) : undefined;
  return node;
}

function isSet(value: unknown): boolean {
  return value !== null && value !== undefined;
}
