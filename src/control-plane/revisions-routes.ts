import type { Request } from "express";
import type { MockContext } from "../context.js";
import { requireUuidPath, validateQuery } from "../http/validate.js";
import type { ControlPlaneRoutes } from "./index.js";
import { controlPlaneErrors } from "./errors.js";
import { deploymentIdOf, deploymentsOf, requireDeployment, toWire, validateRequest } from "./deployments-service.js";
import type { Deployment, DeploymentStore, RevisionEntry } from "./deployments-store.js";
import { listRevisions, type RevisionListQuery } from "./deployments-query.js";
import { isInFlight } from "./lifecycle.js";

/**
 * `/v2/deployments/{deployment_id}/revisions…` (control-plane-notes §6.7): list (newest first), get,
 * and redeploy — a new revision with the old one's source and configuration.
 */
export function revisionsRoutes(ctx: MockContext, on: ControlPlaneRoutes): void {
  on.get("/v2/deployments/:deployment_id/revisions", (req, res) => {
    const deployments = deploymentsOf(ctx);
    const [id, query] = validateRequest(() => deploymentIdOf(req), () => validateQuery<RevisionListQuery>("control-plane/revision.json#/$defs/RevisionListQuery", req.query));
    const deployment = requireDeployment(deployments, req, id);
    const page = listRevisions(deployments.store.revisionsOf(deployment.id), query);
    res.json({ resources: page.resources.map((entry) => entry.revision), offset: page.offset });
  });

  on.get("/v2/deployments/:deployment_id/revisions/:revision_id", (req, res) => {
    const deployments = deploymentsOf(ctx);
    const [id, revisionId] = validateRequest(() => deploymentIdOf(req), () => revisionIdOf(req));
    const deployment = requireDeployment(deployments, req, id);
    res.json(requireRevision(deployments.store, deployment, revisionId).revision);
  });

  on.post("/v2/deployments/:deployment_id/revisions/:revision_id/redeploy", (req, res) => {
    const deployments = deploymentsOf(ctx);
    const [id, revisionId] = validateRequest(() => deploymentIdOf(req), () => revisionIdOf(req));
    const deployment = requireDeployment(deployments, req, id);
    const { revision } = requireRevision(deployments.store, deployment, revisionId);
    if (isInFlight(revision.status)) throw controlPlaneErrors.revisionInFlight(revision.id, revision.status);
    deployments.lifecycle.newRevision(deployment.id, revision.source, revision.source_revision_config);
    res.json(toWire(ctx, req, deployments.store.deployments.get(deployment.id) as Deployment));
  });
}

function revisionIdOf(req: Request): string {
  return requireUuidPath("revision_id", String(req.params.revision_id));
}

/** The deployment's revision named by `{revision_id}` (a UUID): 404 when it is not this deployment's. */
function requireRevision(store: DeploymentStore, deployment: Deployment, id: string): RevisionEntry {
  const entry = store.revisionOf(deployment.id, id);
  if (!entry) throw controlPlaneErrors.revisionNotFound(id);
  return entry;
}
