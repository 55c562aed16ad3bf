import type { MockContext } from "../context.js";
import type { Collection } from "../store/collection.js";
import type { Integration, Repository } from "../schemas/types.gen.js";

export const INTEGRATION_REF = "control-plane/integration.json#/$defs/Integration";
export const REPOSITORY_REF = "control-plane/repository.json#/$defs/Repository";

/** Which listing an integration appears in: the GitHub App routes or the hosted-forge ones. */
export type IntegrationKind = "github" | "forge";

// The wire records are the schemas' (control-plane/integration.json, repository.json).
export type { Integration, Repository };

/** An integration as stored: its wire record, its kind and its repositories (wire records too). */
export interface StoredIntegration {
  integration: Integration;
  kind: IntegrationKind;
  repositories: Repository[];
}

/**
 * The repository-host integrations, keyed by (lower-case) id in fixture order. The deployments
 * module looks `integration_id` up here too.
 */
export function integrationCollection(ctx: MockContext): Collection<StoredIntegration> {
  return ctx.store.collection<StoredIntegration>("integrations");
}
