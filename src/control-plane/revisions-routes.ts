import type { MockContext } from "../context.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { deploymentsOf, requireDeployment, toWire } from "./deployments-service.js";
import { DEPLOYMENT_REF, REVISION_REF, revisionToWire, type Deployment, type DeploymentStore, type RevisionEntry } from "./deployments-store.js";
import { listRevisions, type RevisionListQuery } from "./deployments-query.js";
import { isInFlight } from "./lifecycle.js";
import { TENANT_HEADER, type TenantHeader } from "./tenant-header.js";

const DEPLOYMENT_PATH = object({ deployment_id: UUID });
const REVISION_PATH = object({ deployment_id: UUID, revision_id: UUID });

/**
 * `/v2/deployments/{deployment_id}/revisions…` (control-plane-notes §6.7): list (newest first), get,
 * and redeploy — a new revision with the old one's source and configuration.
 */
export function revisionsRoutes(ctx: MockContext): RouteSpec[] {
  return [
    route<{ params: { deployment_id: string }; query: RevisionListQuery; headers: TenantHeader }>({
      name: "revisions.list",
      method: "GET",
      path: "/v2/deployments/{deployment_id}/revisions",
      params: DEPLOYMENT_PATH,
      query: "control-plane/revision.json#/$defs/RevisionListQuery",
      headers: TENANT_HEADER,
      responses: { 200: "control-plane/revision.json#/$defs/RevisionsList" },
      handler: ({ params, query, headers }) => {
        const deployments = deploymentsOf(ctx);
        const deployment = requireDeployment(deployments, deployments.tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        const page = listRevisions(deployments.store.revisionsOf(deployment.id), query);
        return { resources: page.resources.map((entry) => revisionToWire(entry.revision)), offset: page.offset };
      },
    }),
    route<{ params: { deployment_id: string; revision_id: string }; headers: TenantHeader }>({
      name: "revisions.get",
      method: "GET",
      path: "/v2/deployments/{deployment_id}/revisions/{revision_id}",
      params: REVISION_PATH,
      headers: TENANT_HEADER,
      responses: { 200: REVISION_REF },
      handler: ({ params, headers }) => {
        const deployments = deploymentsOf(ctx);
        const deployment = requireDeployment(deployments, deployments.tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        return revisionToWire(requireRevision(deployments.store, deployment, params.revision_id).revision);
      },
    }),
    route<{ params: { deployment_id: string; revision_id: string }; headers: TenantHeader }>({
      name: "revisions.redeploy",
      method: "POST",
      path: "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy",
      params: REVISION_PATH,
      headers: TENANT_HEADER,
      responses: { 200: DEPLOYMENT_REF },
      handler: ({ params, headers, scope }) => {
        const deployments = deploymentsOf(ctx);
        const deployment = requireDeployment(deployments, deployments.tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        const { revision } = requireRevision(deployments.store, deployment, params.revision_id);
        if (isInFlight(revision.status)) throw controlPlaneErrors.revisionInFlight(revision.id, revision.status);
        deployments.lifecycle.newRevision(deployment.id, revision.source, revision.source_revision_config);
        return toWire(scope, deployments.store.byId(deployment.id) as Deployment);
      },
    }),
  ];
}

/** The deployment's revision named by `{revision_id}`: 404 when it is not this deployment's. */
function requireRevision(store: DeploymentStore, deployment: Deployment, id: string): RevisionEntry {
  const entry = store.revisionOf(deployment.id, id);
  if (!entry) throw controlPlaneErrors.revisionNotFound(id);
  return entry;
}
