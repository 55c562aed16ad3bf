import type { MockContext } from "../context.js";
import type { RequestScope } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import { DeploymentStore, wireTimes, type Deployment, type DeploymentWire } from "./deployments-store.js";
import { Lifecycle } from "./lifecycle.js";
import type { Tenancy } from "./tenancy.js";

/** One mock's deployments: records, lifecycle and the tenancy that scopes them. */
export interface Deployments {
  store: DeploymentStore;
  lifecycle: Lifecycle;
  tenancy: Tenancy;
}

const byContext = new WeakMap<MockContext, Deployments>();

/** Creates the deployments of a mock (once, from controlPlaneModule) so revisions and admin routes can find them. */
export function createDeployments(ctx: MockContext, tenancy: Tenancy): Deployments {
  const store = new DeploymentStore(ctx);
  const deployments = { store, lifecycle: new Lifecycle(ctx, store), tenancy };
  byContext.set(ctx, deployments);
  return deployments;
}

/** The deployments of a mock; routes call it per request, so registration order does not matter. */
export function deploymentsOf(ctx: MockContext): Deployments {
  const deployments = byContext.get(ctx);
  if (!deployments) throw new Error("deploymentsOf(): the control plane's deployments are not set up for this mock");
  return deployments;
}

/**
 * The deployment `id` names in the tenant, with the lifecycle caught up first: 404 with the real
 * text when it does not exist (the id is already a validated, lowercase UUID).
 */
export function requireDeployment(deployments: Deployments, tenantId: string, id: string): Deployment {
  deployments.lifecycle.catchUp();
  const deployment = deployments.store.get(tenantId, id);
  if (!deployment) throw controlPlaneErrors.deploymentNotFound(id);
  return deployment;
}

/**
 * The `Deployment` wire form — the one place a stored deployment becomes what is sent: times formatted,
 * and a hosted deployment's `custom_url` is the mock's own agent server for it, on the origin the
 * client reached (`{base}/agents/{id}`), so it works whatever port the mock has.
 */
export function toWire(scope: Pick<RequestScope, "baseUrl">, deployment: Deployment): DeploymentWire {
  const wire = wireTimes(deployment);
  if (!SOURCE_RULES[deployment.source].hosted) return wire;
  return { ...wire, source_config: { ...deployment.source_config, custom_url: agentUrl(scope.baseUrl, deployment.id) } };
}

/**
 * `toWire` as JSON text, kept per stored record: records are replaced, never changed, on a write,
 * so a record's text stays right until then. Keyed by the base URL too (a hosted deployment's
 * `custom_url` is built on the origin the client reached). List pages are composed from these texts.
 */
export function wireText(scope: Pick<RequestScope, "baseUrl">, deployment: Deployment): string {
  const hit = textCache.get(deployment);
  if (hit && hit.base === scope.baseUrl) return hit.text;
  const text = JSON.stringify(toWire(scope, deployment));
  textCache.set(deployment, { base: scope.baseUrl, text });
  return text;
}
const textCache = new WeakMap<Deployment, { base: string; text: string }>();

export function agentUrl(base: string, deploymentId: string): string {
  return `${base}/agents/${deploymentId}`;
}
