import type { MockContext } from "../context.js";
import type { Collection } from "../store/collection.js";
import { schemas } from "../schemas/registry.js";
import type { Deployment as DeploymentRecord, DeploymentSource, DeploymentStatus, Revision as RevisionRecord, RevisionStatus } from "../schemas/types.gen.js";

export const DEPLOYMENT_REF = "control-plane/deployment.json#/$defs/Deployment";
export const REVISION_REF = "control-plane/revision.json#/$defs/Revision";

// The wire records and their enums are the schemas' (control-plane/deployment.json, revision.json).
export type { DeploymentSource, DeploymentStatus, RevisionStatus };

/** `SourceConfig` / `SourceRevisionConfig` of the schema: every key present, null when unset. */
export type ConfigObject = Record<string, unknown>;

// The configs stay generic objects: the code copies them key by key in schema order (schemaKeys).
/** The wire record (control-plane/deployment.json#/$defs/Deployment), stored as it is sent. */
export type Deployment = Omit<DeploymentRecord, "source_config" | "source_revision_config"> & { source_config: ConfigObject; source_revision_config: ConfigObject };
/** The wire record (control-plane/revision.json#/$defs/Revision). */
export type Revision = Omit<RevisionRecord, "source_revision_config"> & { source_revision_config: ConfigObject };

/**
 * What the real service knows about a deployment but the wire record has no field for: tags and the
 * remote-reconciled flag (list filters), its revisions (newest first) and a scripted failure.
 */
export interface DeploymentMeta {
  tag_value_ids: readonly string[];
  remote_reconciled: boolean;
  revision_ids: readonly string[];
  /** The next revision fails when it reaches this step (admin API / fixtures). */
  fail_next_at: RevisionStatus | null;
}

export interface RevisionEntry {
  deployment_id: string;
  remote_reconciled: boolean;
  revision: Revision;
}

/** Keys of a schema object, in schema order: stored configs carry every one of them. */
export function schemaKeys(def: string): readonly string[] {
  let keys = keysByDef.get(def);
  if (!keys) keysByDef.set(def, (keys = Object.keys((schemas().resolve(`control-plane/deployment.json#/$defs/${def}`).properties ?? {}) as object)));
  return keys;
}
const keysByDef = new Map<string, readonly string[]>();

/**
 * The deployments of one mock: wire records, their internal metadata and revisions, in copy-on-write
 * collections (so reset() is a shallow copy), plus a cached newest-first view per tenant that list
 * requests page through without copying the collection.
 */
export class DeploymentStore {
  readonly deployments: Collection<Deployment>;
  readonly meta: Collection<DeploymentMeta>;
  readonly revisions: Collection<RevisionEntry>;
  private sorted = new Map<string, Deployment[]>();
  private sortedVersion = -1;

  constructor(ctx: MockContext) {
    this.deployments = ctx.store.collection<Deployment>("deployments");
    this.meta = ctx.store.collection<DeploymentMeta>("deployment_meta");
    this.revisions = ctx.store.collection<RevisionEntry>("revisions");
  }

  /** The deployment if it exists in this tenant (another tenant's deployment is "not found"). */
  get(tenantId: string, id: string): Deployment | undefined {
    const deployment = this.deployments.get(id);
    return deployment?.tenant_id === tenantId ? deployment : undefined;
  }

  metaOf(id: string): DeploymentMeta {
    return this.meta.get(id) ?? { tag_value_ids: [], remote_reconciled: false, revision_ids: [], fail_next_at: null };
  }

  /** Revisions of a deployment, newest first. */
  revisionsOf(id: string): RevisionEntry[] {
    const out: RevisionEntry[] = [];
    for (const revisionId of this.metaOf(id).revision_ids) {
      const entry = this.revisions.get(revisionId);
      if (entry) out.push(entry);
    }
    return out;
  }

  revisionOf(deploymentId: string, revisionId: string): RevisionEntry | undefined {
    const entry = this.revisions.get(revisionId);
    return entry?.deployment_id === deploymentId ? entry : undefined;
  }

  /** Adds or replaces a whole deployment with its metadata and revisions (fixtures, create). */
  put(deployment: Deployment, meta: DeploymentMeta, revisions: readonly RevisionEntry[] = []): void {
    for (const entry of revisions) this.revisions.set(entry.revision.id, entry);
    this.meta.set(deployment.id, meta);
    this.deployments.set(deployment.id, deployment);
  }

  update(deployment: Deployment): void {
    this.deployments.set(deployment.id, deployment);
  }

  setMeta(id: string, meta: DeploymentMeta): void {
    this.meta.set(id, meta);
  }

  setRevision(entry: RevisionEntry): void {
    this.revisions.set(entry.revision.id, entry);
  }

  remove(id: string): void {
    for (const revisionId of this.metaOf(id).revision_ids) this.revisions.delete(revisionId);
    this.meta.delete(id);
    this.deployments.delete(id);
  }

  nameTaken(tenantId: string, name: string): boolean {
    return this.sortedFor(tenantId).some((d) => d.name === name);
  }

  /**
   * A tenant's deployments, newest first (`created_at` desc, then `id` asc). Built once per tenant
   * and collection version, so list requests between writes share it.
   */
  sortedFor(tenantId: string): readonly Deployment[] {
    if (this.sortedVersion !== this.deployments.version) {
      this.sorted.clear();
      this.sortedVersion = this.deployments.version;
    }
    let list = this.sorted.get(tenantId);
    if (!list) {
      list = this.deployments.filter((d) => d.tenant_id === tenantId).sort(newestFirst);
      this.sorted.set(tenantId, list);
    }
    return list;
  }
}

/** `created_at` descending, then `id` ascending. Wire timestamps share one format, so text order is time order. */
export function newestFirst(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
