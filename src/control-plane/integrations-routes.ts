import type { MockContext } from "../context.js";
import { listOf, object, route, UUID, type RouteSpec } from "../http/route.js";
import { controlPlaneErrors } from "./errors.js";
import { integrationsIn, INTEGRATION_REF, REPOSITORY_REF, type IntegrationKind } from "./integrations-store.js";

/**
 * Path prefixes of each listing (control-plane-notes §5). `repohost` is the spec's neutral name for
 * `github` (DESIGN §1), served exactly like it.
 */
const PREFIXES: Record<IntegrationKind, Record<string, string>> = {
  github: { github: "/v1/integrations/github", repohost: "/v1/integrations/repohost" },
  forge: { forge: "/v1/integrations/forge/github" },
};

const INTEGRATION_PATH = object({ integration_id: UUID });

/**
 * Repository-host integrations: `…/install` lists the integrations of one kind (fixture order) and
 * `…/{integration_id}/repos` their repositories, whose `host_integration_id`, `url` and
 * `default_branch` are what `POST /v2/deployments` takes as `integration_id`,
 * `source_config.repo_url` and `source_revision_config.repo_ref`.
 */
export function integrationsRoutes(ctx: MockContext): RouteSpec[] {
  const integrations = integrationsIn(ctx);
  return (Object.keys(PREFIXES) as IntegrationKind[]).flatMap((kind) =>
    Object.entries(PREFIXES[kind]).flatMap(([label, prefix]) => [
      route({
        name: `integrations.${label}.install`,
        method: "GET",
        path: `${prefix}/install`,
        responses: { 200: listOf(INTEGRATION_REF) },
        handler: () => integrations.filter((i) => i.kind === kind).map((i) => i.integration),
      }),
      route<{ params: { integration_id: string } }>({
        name: `integrations.${label}.repos`,
        method: "GET",
        path: `${prefix}/{integration_id}/repos`,
        params: INTEGRATION_PATH,
        responses: { 200: listOf(REPOSITORY_REF) },
        handler: ({ params: { integration_id: id } }) => {
          const found = integrations.get(id);
          if (!found || found.kind !== kind) throw controlPlaneErrors.integrationNotFound(id);
          return found.repositories;
        },
      }),
    ]),
  );
}
