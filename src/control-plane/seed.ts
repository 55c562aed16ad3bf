import type { MockContext } from "../context.js";
import type { FixtureSet } from "../store/fixtures.js";
import { Tenancy } from "./tenancy.js";
import { ProviderStore } from "./providers-store.js";
import { seedProviders } from "./providers-fixtures.js";
import { seedIntegrations } from "./integrations-fixtures.js";
import { createDeployments, type Deployments } from "./deployments-service.js";
import { loadDeploymentFixtures } from "./deployments-fixtures.js";
import { McpFixtureServers } from "./mcp-fixture-servers.js";

/** What the control plane's seed steps fill and its routes serve. */
export interface ControlPlaneState {
  tenancy: Tenancy;
  providers: ProviderStore;
  deployments: Deployments;
  mcpServers: McpFixtureServers;
}

export function controlPlaneState(ctx: MockContext, mcpServers: McpFixtureServers = new McpFixtureServers(ctx)): ControlPlaneState {
  const tenancy = new Tenancy();
  return { tenancy, providers: new ProviderStore(ctx), deployments: createDeployments(ctx, tenancy), mcpServers };
}

/**
 * The control plane's seed steps, in order: each reads what the ones before it loaded (providers
 * their organization, deployments their tenants and the integrations' repositories). Kept apart from
 * the routes, so that `validate` runs them without loading the server.
 */
export function seedControlPlane(ctx: MockContext, fixtures: FixtureSet, state: ControlPlaneState): void {
  state.tenancy.seed(fixtures);
  seedIntegrations(ctx, fixtures);
  seedProviders(ctx, fixtures, state.tenancy, state.providers);
  state.mcpServers.seed(fixtures);
  loadDeploymentFixtures(ctx, fixtures, state.deployments);
}
