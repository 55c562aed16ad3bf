import type { MockContext } from "../context.js";
import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { requireDeployment, type Deployments } from "./deployments-service.js";
import { SourceUploads } from "./source-uploads.js";
import { TENANT_HEADER, type TenantHeader } from "./tenant-header.js";

const SCHEMA = "control-plane/deploy-cli.json#/$defs/";
const DEPLOYMENT_PATH = object({ deployment_id: UUID });

/**
 * Where pushed images would go. The mock runs no registry: the host is under `.invalid` (RFC 2606),
 * so a `docker push` to it fails at once instead of reaching some real host.
 */
export const REGISTRY_HOST = "registry.agent-platform-mock.invalid";

/**
 * The endpoints `langgraph deploy` uses that the public document lacks (control-plane-notes §4):
 * a push token for a local build's image, an upload URL for a remote build's source, and the upload
 * itself, which the mock serves so the whole remote-build flow runs against it.
 */
export function deployCliRoutes(ctx: MockContext, deployments: Deployments): RouteSpec[] {
  const uploads = new SourceUploads(ctx);
  return [
    route<{ params: { deployment_id: string }; headers: TenantHeader }>({
      name: "deployments.push_token",
      method: "POST",
      path: "/v2/deployments/{deployment_id}/push-token",
      params: DEPLOYMENT_PATH,
      headers: TENANT_HEADER,
      responses: { 200: `${SCHEMA}PushToken` },
      handler: ({ params, headers }) => {
        const deployment = requireDeployment(deployments, deployments.tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        if (deployment.source !== "internal_docker") throw controlPlaneErrors.pushTokenSource(deployment.source);
        return { token: `mock-push-${ctx.random.hex(48)}`, registry_url: `https://${REGISTRY_HOST}/${deployment.tenant_id}/${deployment.id}` };
      },
    }),
    route<{ params: { deployment_id: string }; headers: TenantHeader }>({
      name: "deployments.upload_url",
      method: "POST",
      path: "/v2/deployments/{deployment_id}/upload-url",
      params: DEPLOYMENT_PATH,
      headers: TENANT_HEADER,
      responses: { 200: `${SCHEMA}UploadUrl` },
      handler: ({ params, headers, scope }) => {
        const deployment = requireDeployment(deployments, deployments.tenancy.tenantOf(headers["x-tenant-id"]), params.deployment_id);
        // The CLI moves one deployment between remote (internal_source) and local (internal_docker) builds.
        if (deployment.source !== "internal_source" && deployment.source !== "internal_docker") throw controlPlaneErrors.uploadUrlSource(deployment.source);
        return uploads.issue(deployment.id, scope.baseUrl);
      },
    }),
    route<{ params: { upload_id: string }; query: { signature: string }; headers: { "content-type"?: string } }>({
      name: "uploads.put",
      method: "PUT",
      path: "/uploads/{upload_id}/source.tar.gz",
      params: `${SCHEMA}UploadPath`,
      query: `${SCHEMA}UploadQuery`,
      headers: { type: "object", properties: { "content-type": { type: "string" } } },
      // A signed URL: the signature is the credential, as with Cloud Storage (the CLI sends no API key).
      public: true,
      bodyKind: "raw",
      responses: { 200: null },
      handler: ({ params, query, headers, body }) => {
        uploads.receive(params.upload_id, query.signature, Buffer.isBuffer(body) ? body : Buffer.alloc(0), headers["content-type"] ?? null);
      },
    }),
  ];
}
