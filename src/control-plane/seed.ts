import type { MockContext } from "../context.js";
import { freezeJson } from "../core/json.js";
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
 * their organization, deployments their tenants and the integrations' repositories), and each draws
 * from a generator of its own, derived from the mock's by the section's name: what one step draws
 * never moves another's values. Kept apart from the routes, so that `validate` runs them without
 * loading the server.
 */
export function seedControlPlane(ctx: MockContext, fixtures: FixtureSet, state: ControlPlaneState): void {
  state.tenancy.seed(fixtures);
  const key = seededKey(ctx, fixtures);
  const kept = key === undefined ? undefined : seededRecords.get(key);
  const problemsBefore = fixtures.problems.length;
  if (kept) {
    for (const [name, records] of kept) {
      const collection = ctx.store.collection(name);
      for (const [id, record] of records) collection.set(id, record);
    }
  } else {
    seedIntegrations(ctx, fixtures, ctx.random.derive("integrations"));
    seedProviders(ctx, fixtures, state.tenancy, state.providers, ctx.random.derive("oauth_providers"));
  }
  state.mcpServers.seed(fixtures);
  if (kept) return;
  loadDeploymentFixtures(ctx, fixtures, state.deployments, ctx.random.derive("deployments"));
  // A start with problems does not start: only a good one is worth keeping.
  if (key !== undefined && fixtures.problems.length === problemsBefore) keep(key, ctx);
}

/**
 * The records a seeded start's record steps (integrations, providers, deployments and their
 * lifecycle) made, by collection, kept for the next start of the process with the same inputs: a
 * test suite builds the same seeded mock over and over, and completing and checking the records is
 * most of a later start. The steps are functions of the seed, the fixture files' texts and the
 * options (clock start, lifecycle…), which together are the key; records are never
 * changed in place, so every later mock shares them (its collections copy on their first write).
 */
const seededRecords = new Map<string, Map<string, Map<string, unknown>>>();
const MAX_KEPT = 16;
const RECORD_COLLECTIONS = ["integrations", "oauth_providers", "deployments", "deployment_lifecycles", "revision_history"];

/** The key of a start's records, or undefined when they cannot be kept (unseeded, or fixtures passed as objects). */
function seededKey(ctx: MockContext, fixtures: FixtureSet): string | undefined {
  if (!ctx.random.seeded || fixtures.textKey === undefined) return undefined;
  // Options as JSON: functions (onRequest, onProgress) drop out, and any other option is part of the
  // key but the mock's own URLs (startMockServer's carry its port) and the scenarios, which no record
  // depends on.
  const { publicUrl: _public, tracingUrl: _tracing, scenarios: _scenarios, ...options } = ctx.options;
  return JSON.stringify([fixtures.textKey, ctx.clock.now(), options]);
}

function keep(key: string, ctx: MockContext): void {
  if (seededRecords.size >= MAX_KEPT) seededRecords.clear();
  // Frozen: a record changed in place by mistake throws rather than leaking into later mocks.
  seededRecords.set(key, new Map(RECORD_COLLECTIONS.map((name) => [name, new Map([...ctx.store.collection(name).entries()].map(([id, record]) => [id, freezeJson(record)]))])));
}
