import type { RequestHandler } from "express";
import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { requireUuidPath } from "../http/validate.js";
import type { ControlPlaneRoutes } from "./index.js";
import { controlPlaneErrors } from "./errors.js";
import { integrationCollection, type IntegrationKind } from "./integrations-store.js";
import { seedIntegrations } from "./integrations-fixtures.js";

/**
 * Path prefixes of each listing (control-plane-notes §5). `repohost` is the spec's neutral name for
 * `github` (DESIGN §1), served exactly like it.
 */
const PREFIXES: Record<IntegrationKind, string[]> = {
  github: ["/v1/integrations/github", "/v1/integrations/repohost"],
  forge: ["/v1/integrations/forge/github"],
};

/**
 * Repository-host integrations: `…/install` lists the integrations of one kind (fixture order) and
 * `…/{integration_id}/repos` their repositories, whose `host_integration_id`, `url` and
 * `default_branch` are what `POST /v2/deployments` takes as `integration_id`,
 * `source_config.repo_url` and `source_revision_config.repo_ref`.
 */
export function integrationsRoutes(ctx: MockContext, on: ControlPlaneRoutes, fixtures: FixtureSet): void {
  seedIntegrations(ctx, fixtures);
  const integrations = integrationCollection(ctx);

  for (const kind of Object.keys(PREFIXES) as IntegrationKind[]) {
    const install: RequestHandler = (_req, res) => {
      res.json(integrations.filter((i) => i.kind === kind).map((i) => i.integration));
    };
    const repos: RequestHandler = (req, res) => {
      const id = requireUuidPath("integration_id", String(req.params.integration_id));
      const found = integrations.get(id);
      if (!found || found.kind !== kind) throw controlPlaneErrors.integrationNotFound(id);
      res.json(found.repositories);
    };
    for (const prefix of PREFIXES[kind]) {
      on.get(`${prefix}/install`, install);
      on.get(`${prefix}/:integration_id/repos`, repos);
    }
  }
}
