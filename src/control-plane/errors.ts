import { HttpError, detailError, validationError } from "../http/http-error.js";
import { fastApiBodyError, type BodyProblem } from "../http/json-body.js";
import { illFormedTextIssues } from "../http/pydantic-issues.js";

/**
 * Every error the control plane answers with, in the real service's FastAPI shape (DESIGN §2,
 * control-plane-notes §3). Texts marked [real] were seen from the real service; the others are the
 * mock's choice where the real text is unknown, recorded in docs/decisions/.
 */
export const controlPlaneErrors = {
  /** Missing or wrong X-Api-Key. [real, main LangSmith API] */
  invalidToken: () => detailError(401, "Invalid token"),
  /** Body that is not JSON: FastAPI's json_invalid entry. */
  badBody: (problem: BodyProblem): HttpError => fastApiBodyError(problem),

  // OAuth providers
  providerNotFound: (providerId: string) => detailError(404, `OAuth provider '${providerId}' not found.`),
  providerExists: (providerId: string) => detailError(409, `OAuth provider with provider_id '${providerId}' already exists.`),
  /** One step of MCP discovery failed (DESIGN §2): names the step and the URL. */
  mcpDiscoveryFailed: (step: string, url: string, why: string) => detailError(400, `MCP discovery failed at ${step} (${url}): ${why}`),

  // Agent auth (the texts are the mock's: the document gives none)
  /** `state` names no flow of this provider, or the flow expired (10 minutes) or already finished. */
  authStateInvalid: () => detailError(400, "Invalid or expired OAuth state."),
  authCodeMissing: () => detailError(400, "Missing authorization code or state."),
  /** The provider redirected back with `error` (RFC 6749 §4.1.2.1). */
  authProviderError: (error: string, description: string | undefined) =>
    detailError(400, `OAuth provider returned an error: ${error}${description ? ` (${description})` : ""}`),
  /** The token endpoint refused the code or could not be reached. */
  tokenExchangeFailed: (tokenUrl: string, why: string) => detailError(400, `Token exchange at ${tokenUrl} failed: ${why}`),
  providerUrlInvalid: (providerId: string, field: string, value: string) =>
    detailError(400, `OAuth provider '${providerId}' has no usable ${field}: ${JSON.stringify(value)} is not an absolute URL.`),
  tokenNotFound: (tokenId: string) => detailError(404, `OAuth token '${tokenId}' not found.`),
  connectionNotFound: (connectionId: string) => detailError(404, `Connection '${connectionId}' not found.`),

  // Integrations
  integrationNotFound: (integrationId: string) => detailError(404, `Integration ID ${integrationId} not found.`),

  // Deployments and revisions
  /** [real] */
  deploymentNotFound: (deploymentId: string) => detailError(404, `Deployment ID ${deploymentId} not found.`),
  revisionNotFound: (revisionId: string) => detailError(404, `Revision ID ${revisionId} not found.`),
  /** [real] e.g. "'source_revision_config.repo_ref' is required for 'github' source" */
  sourceConfig: (reason: string) => detailError(400, `Source configuration error: ${reason}`),
  invalidName: (name: string) =>
    detailError(400, `Invalid deployment name '${name}'. Names must start with a lowercase letter and contain only lowercase letters, digits and hyphens (at most 63 characters).`),
  duplicateName: (name: string) => detailError(409, `Deployment with name '${name}' already exists.`),
  unknownIntegration: (integrationId: string) => detailError(400, `Integration ID ${integrationId} not found.`),
  immutableField: (field: string) => detailError(400, `Field '${field}' cannot be changed once the deployment is created.`),
  /** Bulk delete where none of the ids exists (some missing is a 207 instead). */
  deploymentsNotFound: (ids: readonly string[]) => detailError(404, `Deployment ID${ids.length > 1 ? "s" : ""} ${ids.join(", ")} not found.`),
  // The deploy CLI's endpoints (control-plane-notes §4)
  /** [real: the CLI matches "only available for 'internal_docker' source deployments"] */
  pushTokenSource: (source: string) => detailError(400, `Push tokens are only available for 'internal_docker' source deployments; this deployment's source is '${source}'.`),
  uploadUrlSource: (source: string) =>
    detailError(400, `Upload URLs are only available for 'internal_source' and 'internal_docker' source deployments; this deployment's source is '${source}'.`),
  /** A PUT to an upload URL the mock did not hand out (Cloud Storage answers 403 for a bad signature). */
  uploadSignature: () => detailError(403, "Invalid upload URL: the signature does not match an upload URL handed out by POST /v2/deployments/{deployment_id}/upload-url."),

  // Listeners [real texts: the spec's examples]
  listenerNotFound: (listenerId: string) => detailError(404, `Listener ID ${listenerId} not found.`),
  listenersNotAllowed: (workspaceId: string) =>
    detailError(403, `Listeners cannot be created for LangSmith workspace ID '${workspaceId}'. Creating listeners is only allowed for LangSmith organizations with self-hosted enterprise plans.`),
  listenerExists: (workspaceId: string, computeId: string) => detailError(409, `Listener for LangSmith workspace ID '${workspaceId}' and compute ID '${computeId}' already exists.`),
  revisionInFlight: (revisionId: string, status: string) =>
    detailError(400, `Revision ID ${revisionId} is still in progress (${status}); only a finished revision can be redeployed.`),
};

/**
 * Throws pydantic's 422 `string_unicode` when one of `fields` holds a lone surrogate: text the mock
 * sends on in a URL, a header or a form must be Unicode (docs/decisions/oauth-providers.md).
 */
export function refuseIllFormedText(body: unknown, fields: readonly string[]): void {
  const issues = illFormedTextIssues(body, fields);
  if (issues.length) throw validationError(issues);
}
