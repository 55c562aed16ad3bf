import type { MockContext } from "../context.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { requireDeployment, type Deployments } from "./deployments-service.js";
import type { Deployment, RevisionEntry } from "./deployments-store.js";
import { buildLog, deployLog, logsPage, transitionsOf, type LogLine, type LogsRequest } from "./revision-logs.js";
import { TENANT_HEADER, type TenantHeader } from "./tenant-header.js";

const REQUEST = "control-plane/logs.json#/$defs/LogsRequest";
const PAGE = "control-plane/logs.json#/$defs/LogsPage";
const PROJECT_PATH = object({ project_id: UUID });
const REVISION_PATH = object({ project_id: UUID, revision_id: UUID });

/**
 * Build and deploy logs (control-plane-notes §4): `project_id` is the deployment's id, as the CLI
 * sends it. Lines follow the revisions' lifecycle on the mock's clock (src/control-plane/revision-logs.ts);
 * a request without a body reads as `{}` (every default).
 */
export function logsRoutes(ctx: MockContext, deployments: Deployments): RouteSpec[] {
  const { store, lifecycle, tenancy } = deployments;
  const deploymentOf = (headers: TenantHeader, id: string): Deployment => requireDeployment(deployments, tenancy.tenantOf(headers["x-tenant-id"]), id);
  const revisionOf = (deployment: Deployment, id: string): RevisionEntry => {
    const entry = store.revisionOf(deployment.id, id);
    if (!entry) throw controlPlaneErrors.revisionNotFound(id);
    return entry;
  };
  const deployLines = (entry: RevisionEntry): LogLine[] => deployLog(entry.revision, transitionsOf(entry.revision, lifecycle.historyOf(entry.revision.id)), ctx.clock.now());

  return [
    route<{ params: { project_id: string; revision_id: string }; headers: TenantHeader; body: LogsRequest }>({
      name: "revisions.build_logs",
      method: "POST",
      path: "/v1/projects/{project_id}/revisions/{revision_id}/build_logs",
      params: REVISION_PATH,
      headers: TENANT_HEADER,
      body: REQUEST,
      emptyBody: {},
      responses: { 200: PAGE },
      handler: ({ params, headers, body }) => {
        const deployment = deploymentOf(headers, params.project_id);
        const { revision } = revisionOf(deployment, params.revision_id);
        return logsPage(buildLog(revision, transitionsOf(revision, lifecycle.historyOf(revision.id)), deployment.source_config, ctx.clock.now()), body);
      },
    }),
    route<{ params: { project_id: string; revision_id: string }; headers: TenantHeader; body: LogsRequest }>({
      name: "revisions.deploy_logs",
      method: "POST",
      path: "/v1/projects/{project_id}/revisions/{revision_id}/deploy_logs",
      params: REVISION_PATH,
      headers: TENANT_HEADER,
      body: REQUEST,
      emptyBody: {},
      responses: { 200: PAGE },
      handler: ({ params, headers, body }) => logsPage(deployLines(revisionOf(deploymentOf(headers, params.project_id), params.revision_id)), body),
    }),
    route<{ params: { project_id: string }; headers: TenantHeader; body: LogsRequest }>({
      name: "deployments.deploy_logs",
      method: "POST",
      path: "/v1/projects/{project_id}/deploy_logs",
      params: PROJECT_PATH,
      headers: TENANT_HEADER,
      body: REQUEST,
      emptyBody: {},
      responses: { 200: PAGE },
      // The deployment's runtime log: every revision's deploy lines, merged by time.
      handler: ({ params, headers, body }) => logsPage(store.revisionsOf(deploymentOf(headers, params.project_id).id).flatMap(deployLines), body),
    }),
  ];
}
