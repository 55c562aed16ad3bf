import type { MockContext } from "../context.js";
import { isUuid } from "../core/random.js";
import { validateBody } from "../http/validate.js";
import { deploymentsOf } from "../control-plane/deployments-service.js";
import type { Deployment, RevisionStatus } from "../control-plane/deployments-store.js";
import { pathFor } from "../control-plane/lifecycle.js";
import { adminErrors } from "./errors.js";
import type { AdminRoutes } from "./index.js";

const SCHEMA = "admin/deployment-lifecycle.json#/$defs/";

/**
 * Scripting the deployment lifecycle (docs/deployments.md): make a revision fail at a step, or move
 * one deployment's in-flight revision on. Deployments are found by id in any tenant.
 */
export function lifecycleAdminRoutes(ctx: MockContext, on: AdminRoutes): void {
  on.post("/deployments/:deployment_id/fail", (req, res) => {
    const deployment = requireDeployment(ctx, String(req.params.deployment_id));
    const { at } = validateBody<{ at: RevisionStatus }>(`${SCHEMA}FailRequest`, req.body);
    if (!pathFor(deployment.source).includes(at)) {
      throw adminErrors.badRequest(`A '${deployment.source}' revision never reaches ${at}: image sources skip the build states. Choose one of ${pathFor(deployment.source).slice(0, -1).join(", ")}.`);
    }
    const scripted = deploymentsOf(ctx).lifecycle.fail(deployment.id, at);
    res.json({ deployment_id: deployment.id, at, ...scripted });
  });

  on.post("/deployments/:deployment_id/advance", (req, res) => {
    const deployment = requireDeployment(ctx, String(req.params.deployment_id));
    const { steps } = validateBody<{ steps: number }>(`${SCHEMA}AdvanceRequest`, req.body ?? {});
    const { lifecycle, store } = deploymentsOf(ctx);
    const revisionId = lifecycle.inFlightRevision(deployment.id);
    if (!revisionId) {
      throw adminErrors.conflict(`Deployment ${deployment.id} has no revision in flight (its latest revision is ${latestStatus(ctx, deployment)}).`);
    }
    lifecycle.advance(deployment.id, steps);
    const revision = store.revisions.get(revisionId)?.revision;
    res.json({ deployment_id: deployment.id, revision_id: revisionId, status: revision?.status, in_flight: lifecycle.inFlightRevision(deployment.id) === revisionId });
  });
}

function requireDeployment(ctx: MockContext, id: string): Deployment {
  if (!isUuid(id)) throw adminErrors.badRequest(`deployment_id must be a UUID; got ${JSON.stringify(id)}`);
  const { store, lifecycle } = deploymentsOf(ctx);
  lifecycle.catchUp();
  const deployment = store.deployments.get(id.toLowerCase());
  if (!deployment) throw adminErrors.notFound(`Deployment ${id}`);
  return deployment;
}

function latestStatus(ctx: MockContext, deployment: Deployment): string {
  const id = deployment.latest_revision_id;
  return (id && deploymentsOf(ctx).store.revisions.get(id)?.revision.status) || "none";
}
