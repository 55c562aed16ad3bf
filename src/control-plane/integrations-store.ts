import type { Integration, Repository } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";

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

export const integrationsIn = declareCollection<StoredIntegration>("integrations");
