import type { Request } from "express";
import type { MockContext } from "../context.js";
import { requireUuidPath } from "../http/validate.js";
import { HttpError, validationError, type ValidationIssue } from "../http/http-error.js";
import { controlPlaneErrors } from "./errors.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import { DeploymentStore, type Deployment } from "./deployments-store.js";
import { Lifecycle } from "./lifecycle.js";
import type { Tenancy } from "./tenancy.js";

/** One mock's deployments: records, lifecycle and the tenancy that scopes them. */
export interface Deployments {
  store: DeploymentStore;
  lifecycle: Lifecycle;
  tenancy: Tenancy;
}

const byContext = new WeakMap<MockContext, Deployments>();

/** Creates the deployments of a mock (once, from deploymentsRoutes) so revisions and admin routes can find them. */
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
 * Runs a route's request checks the way FastAPI validates a request before its handler: every check
 * runs and all their 422 entries come back in one body, in the order given (path, query, body).
 */
export function validateRequest<T extends unknown[]>(...checks: { [K in keyof T]: () => T[K] }): T {
  const issues: ValidationIssue[] = [];
  const values = checks.map((check) => {
    try {
      return check();
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 422 && Array.isArray((err.body as { detail?: unknown }).detail))) throw err;
      issues.push(...(err.body as { detail: ValidationIssue[] }).detail);
      return undefined;
    }
  });
  if (issues.length) throw validationError(issues);
  return values as T;
}

/** `{deployment_id}` of the path: 422 unless a UUID. */
export function deploymentIdOf(req: Request): string {
  return requireUuidPath("deployment_id", String(req.params.deployment_id));
}

/**
 * The deployment a request's `{deployment_id}` names in the request's tenant, with the lifecycle
 * caught up first: 422 for a non-UUID, 404 with the real text when it does not exist.
 */
export function requireDeployment(deployments: Deployments, req: Request, id: string = deploymentIdOf(req)): Deployment {
  deployments.lifecycle.catchUp();
  const deployment = deployments.store.get(deployments.tenancy.tenantOf(req), id);
  if (!deployment) throw controlPlaneErrors.deploymentNotFound(id);
  return deployment;
}

/**
 * The record as sent: a hosted deployment's `custom_url` is the mock's own agent server for it, on
 * the origin the client reached (`{base}/agents/{id}`), so it works whatever port the mock has.
 */
export function toWire(ctx: MockContext, req: Request, deployment: Deployment): Deployment {
  if (!SOURCE_RULES[deployment.source].hosted) return deployment;
  return { ...deployment, source_config: { ...deployment.source_config, custom_url: agentUrl(ctx.baseUrl(req), deployment.id) } };
}

export function agentUrl(base: string, deploymentId: string): string {
  return `${base}/agents/${deploymentId}`;
}
