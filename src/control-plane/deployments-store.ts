import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import type { Collection } from "../store/collection.js";
import { schemas } from "../schemas/registry.js";
import type { Deployment as DeploymentRecord, DeploymentSource, DeploymentStatus, Revision as RevisionRecord, RevisionStatus } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";
import { DeploymentList } from "./deployments-list.js";

export const DEPLOYMENT_REF = "control-plane/deployment.json#/$defs/Deployment";
export const REVISION_REF = "control-plane/revision.json#/$defs/Revision";

// The wire records and their enums are the schemas' (control-plane/deployment.json, revision.json).
export type { DeploymentSource, DeploymentStatus, RevisionStatus };

/** `SourceConfig` / `SourceRevisionConfig` of the schema: every key present, null when unset. */
export type ConfigObject = Record<string, unknown>;

// The configs stay generic objects: the code copies them key by key in schema order (schemaKeys).
/** The wire record (control-plane/deployment.json#/$defs/Deployment). */
export type DeploymentWire = Omit<DeploymentRecord, "source_config" | "source_revision_config"> & { source_config: ConfigObject; source_revision_config: ConfigObject };
/** The wire record (control-plane/revision.json#/$defs/Revision). */
export type RevisionWire = Omit<RevisionRecord, "source_revision_config"> & { source_revision_config: ConfigObject };

/** A record as stored: `created_at` and `updated_at` in epoch ms, formatted only where the wire form is built. */
type Stamped<T> = Omit<T, "created_at" | "updated_at"> & { created_at: number; updated_at: number };
/** A deployment as stored: the wire record's fields in its order, times in epoch ms (`toWire` in deployments-service.ts formats them). */
export type Deployment = Stamped<DeploymentWire>;
/** A revision as stored: times in epoch ms (`revisionToWire` formats them). */
export type Revision = Stamped<RevisionWire>;

/** The stored record's times in the service's wire form; every other field as stored (shared, not copied). */
export function wireTimes<T extends { created_at: number; updated_at: number }>(record: T): Omit<T, "created_at" | "updated_at"> & { created_at: string; updated_at: string } {
  return { ...record, created_at: formatTimestamp(record.created_at), updated_at: formatTimestamp(record.updated_at) };
}

/** The `Revision` wire form. */
export function revisionToWire(revision: Revision): RevisionWire {
  return wireTimes(revision);
}

/** A wire-form record (fixture text, any ISO form) as stored: its times parsed to epoch ms. */
export function storedTimes<T extends { created_at: string; updated_at: string }>(record: T): Omit<T, "created_at" | "updated_at"> & { created_at: number; updated_at: number } {
  return { ...record, created_at: Date.parse(record.created_at), updated_at: Date.parse(record.updated_at) };
}

/**
 * What the real service knows about a deployment but the wire record has no field for: tags and the
 * remote-reconciled flag (list filters) and a scripted failure. Generated deployments share these
 * objects (never changed in place: a write stores a new one).
 */
export interface DeploymentMeta {
  tag_value_ids: readonly string[];
  remote_reconciled: boolean;
  /** The next revision fails when it reaches this step (admin API / fixtures). */
  fail_next_at: RevisionStatus | null;
}

/**
 * A deployment as the collection holds it: the wire record, its metadata and its revisions, one map
 * entry for all. A write stores a new entry that shares what it does not change.
 */
export interface StoredDeployment {
  deployment: Deployment;
  meta: DeploymentMeta;
  /** Its revisions, newest first (every lookup of a revision knows its deployment). */
  revisions: readonly RevisionEntry[];
}

/** The metadata of a deployment that has none stored: shared, never written. */
const NO_META: DeploymentMeta = Object.freeze({ tag_value_ids: Object.freeze([]), remote_reconciled: false, fail_next_at: null });
const NO_REVISIONS: readonly RevisionEntry[] = Object.freeze([]);

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
 * The deployments of one mock: wire records with their metadata and revisions, in a copy-on-write
 * collection (so reset() is a shallow copy). Two views are derived from it: each tenant's names
 * (uniqueness), kept in step by the writes made here so that a create costs the same with 10 or
 * 100,000 deployments stored, and each tenant's newest-first list with its filter indexes
 * (DeploymentList), built when a read needs it and dropped at the next write.
 */
export class DeploymentStore {
  private readonly entries: Collection<StoredDeployment>;
  /** tenant → name → id, valid while `namesVersion` is the collection's version (anything else, reset's restore included, rebuilds it). */
  private names = new Map<string, Map<string, string>>();
  private namesVersion = -1;
  private lists: { version: number; byTenant: Map<string, DeploymentList> } | undefined;

  constructor(ctx: MockContext) {
    this.entries = deploymentsIn(ctx);
  }

  /** The deployment if it exists in this tenant (another tenant's deployment is "not found"). */
  get(tenantId: string, id: string): Deployment | undefined {
    return this.entryIn(tenantId, id)?.deployment;
  }

  /** The deployment with its metadata and revisions, if it exists in this tenant. */
  entryIn(tenantId: string, id: string): StoredDeployment | undefined {
    const entry = this.entries.get(id);
    return entry?.deployment.tenant_id === tenantId ? entry : undefined;
  }

  /** The deployment with this id, whatever its tenant (admin API, lifecycle). */
  byId(id: string): Deployment | undefined {
    return this.entries.get(id)?.deployment;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Every deployment of every tenant, in the order they were stored. */
  *all(): IterableIterator<Deployment> {
    for (const entry of this.entries.values()) yield entry.deployment;
  }

  metaOf(id: string): DeploymentMeta {
    return this.entries.get(id)?.meta ?? NO_META;
  }

  /** Revisions of a deployment, newest first. */
  revisionsOf(id: string): readonly RevisionEntry[] {
    return this.entries.get(id)?.revisions ?? NO_REVISIONS;
  }

  revisionOf(deploymentId: string, revisionId: string): RevisionEntry | undefined {
    return this.revisionsOf(deploymentId).find((entry) => entry.revision.id === revisionId);
  }

  /** Adds or replaces a whole deployment with its metadata and revisions (fixtures, create). */
  put(deployment: Deployment, meta: DeploymentMeta, revisions: readonly RevisionEntry[]): void {
    this.write({ deployment, meta, revisions });
  }

  /** Replaces a deployment's wire record. */
  update(deployment: Deployment): void {
    this.write({ deployment, meta: this.metaOf(deployment.id), revisions: this.revisionsOf(deployment.id) });
  }

  /** Replaces a deployment's metadata, and its revisions when given (nothing when it does not exist). */
  setMeta(id: string, meta: DeploymentMeta, revisions?: readonly RevisionEntry[]): void {
    const entry = this.entries.get(id);
    if (entry) this.write({ deployment: entry.deployment, meta, revisions: revisions ?? entry.revisions });
  }

  /** Replaces a revision of its deployment (found by id), or adds it as the newest. */
  setRevision(entry: RevisionEntry): void {
    const revisions = this.revisionsOf(entry.deployment_id);
    const at = revisions.findIndex((r) => r.revision.id === entry.revision.id);
    this.setMeta(entry.deployment_id, this.metaOf(entry.deployment_id), at < 0 ? [entry, ...revisions] : revisions.with(at, entry));
  }

  remove(id: string): void {
    const old = this.byId(id);
    const inStep = this.namesVersion === this.entries.version;
    if (!this.entries.delete(id) || !old || !inStep) return;
    const names = this.names.get(old.tenant_id);
    if (names?.get(old.name) === id) names.delete(old.name);
    this.namesVersion = this.entries.version;
  }

  nameTaken(tenantId: string, name: string): boolean {
    if (this.namesVersion !== this.entries.version) {
      this.names = new Map();
      for (const { deployment } of this.entries.values()) this.tenantNames(deployment.tenant_id).set(deployment.name, deployment.id);
      this.namesVersion = this.entries.version;
    }
    return this.names.get(tenantId)?.has(name) ?? false;
  }

  /** A tenant's deployments, newest first (`created_at` desc, then `id` asc): sorted on the first read after a write. */
  listFor(tenantId: string): DeploymentList {
    if (this.lists?.version !== this.entries.version) {
      const byTenant = new Map<string, StoredDeployment[]>();
      for (const entry of this.entries.values()) {
        const list = byTenant.get(entry.deployment.tenant_id);
        if (list) list.push(entry);
        else byTenant.set(entry.deployment.tenant_id, [entry]);
      }
      const lists = new Map<string, DeploymentList>();
      for (const [tenant, list] of byTenant) lists.set(tenant, new DeploymentList(sortedNewestFirst(list)));
      this.lists = { version: this.entries.version, byTenant: lists };
    }
    return this.lists.byTenant.get(tenantId) ?? NO_DEPLOYMENTS;
  }

  private write(stored: StoredDeployment): void {
    const { deployment } = stored;
    const inStep = this.namesVersion === this.entries.version;
    const old = inStep ? this.byId(deployment.id) : undefined;
    this.entries.set(deployment.id, stored);
    if (!inStep) return;
    if (old && (old.name !== deployment.name || old.tenant_id !== deployment.tenant_id)) {
      const names = this.names.get(old.tenant_id);
      if (names?.get(old.name) === old.id) names.delete(old.name);
    }
    this.tenantNames(deployment.tenant_id).set(deployment.name, deployment.id);
    this.namesVersion = this.entries.version;
  }

  private tenantNames(tenantId: string): Map<string, string> {
    let names = this.names.get(tenantId);
    if (!names) this.names.set(tenantId, (names = new Map()));
    return names;
  }
}

const NO_DEPLOYMENTS = new DeploymentList([]);

/** `created_at` descending (epoch ms), then `id` ascending. */
/**
 * The entries newest first. Each comparison reads its two keys from small objects made for the sort,
 * side by side in memory, rather than from two deployments anywhere in the heap: with 100,000
 * deployments that is the difference between ~0.4 s and ~0.1 s for the first list after a write.
 */
function sortedNewestFirst(entries: StoredDeployment[]): StoredDeployment[] {
  const keyed = entries.map((entry) => ({ created_at: entry.deployment.created_at, id: entry.deployment.id, entry }));
  return keyed.sort(newestFirst).map(({ entry }) => entry);
}

export function newestFirst(a: { created_at: number; id: string }, b: { created_at: number; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Each deployment with its metadata and revisions. */
export const deploymentsIn = declareCollection<StoredDeployment>("deployments");
