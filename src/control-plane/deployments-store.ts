import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import type { Collection } from "../store/collection.js";
import type { GeneratedRevisions } from "./generated-revisions.js";
import { schemas } from "../schemas/registry.js";
import type { Deployment as DeploymentRecord, DeploymentSource, DeploymentStatus, Revision as RevisionRecord, RevisionStatus } from "../schemas/types.gen.js";

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
 * entry for all (a second map keyed by the same id was a tenth of loading 100,000 generated
 * deployments). A write stores a new entry that shares what it does not change.
 */
export interface StoredDeployment {
  deployment: Deployment;
  meta: DeploymentMeta;
  /**
   * Its revisions, newest first. Kept with the deployment, not in a map by revision id: every lookup
   * of a revision knows its deployment. Undefined until read for a generated deployment, whose
   * revisions are row `row` of its set's table (`generated`); revisionsIn builds them then.
   */
  revisions: readonly RevisionEntry[] | undefined;
  generated: GeneratedRevisions | undefined;
  row: number;
}

/** A stored deployment's revisions, newest first, built from its set's table on first read and kept with it. */
export function revisionsIn(stored: StoredDeployment): readonly RevisionEntry[] {
  // Written in place: a cache of what the entry stands for, the same whoever reads it first.
  return (stored.revisions ??= (stored.generated as GeneratedRevisions).entries(stored.row, stored.deployment));
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
 * The deployments of one mock: wire records and their metadata (revisions included), in a copy-on-write
 * collection (so reset() is a shallow copy), plus an index per tenant — names (uniqueness) and the
 * newest-first order list requests page through — kept up to date by each write instead of being
 * rebuilt, so a create costs the same with 10 or 100,000 deployments stored.
 */
export class DeploymentStore {
  private readonly entries: Collection<StoredDeployment>;
  private index = new Map<string, TenantIndex>();
  /**
   * The collection version the index matches. Writes through this class update the index in step;
   * anything else that changes the collection (reset's restore, a write the index cannot follow
   * cheaply) leaves them apart and the index is rebuilt once, on the next read.
   */
  private indexVersion = -1;

  constructor(ctx: MockContext) {
    this.entries = ctx.data.deployments;
  }

  /** The deployment if it exists in this tenant (another tenant's deployment is "not found"). */
  get(tenantId: string, id: string): Deployment | undefined {
    const deployment = this.entries.get(id)?.deployment;
    return deployment?.tenant_id === tenantId ? deployment : undefined;
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
    const entry = this.entries.get(id);
    return entry ? revisionsIn(entry) : NO_REVISIONS;
  }

  revisionOf(deploymentId: string, revisionId: string): RevisionEntry | undefined {
    return this.revisionsOf(deploymentId).find((entry) => entry.revision.id === revisionId);
  }

  /** Adds or replaces a whole deployment with its metadata and revisions (fixtures, create). */
  put(deployment: Deployment, meta: DeploymentMeta, revisions: readonly RevisionEntry[]): void {
    this.write({ deployment, meta, revisions, generated: undefined, row: 0 });
  }

  /** Adds a generated deployment, its revisions being record `row` of its set's table. */
  putGenerated(deployment: Deployment, meta: DeploymentMeta, generated: GeneratedRevisions, row: number): void {
    this.write({ deployment, meta, revisions: undefined, generated, row }, true);
  }

  /** Replaces a deployment's wire record; its revisions are built first if still in the table (they follow from the record they were generated with). */
  update(deployment: Deployment): void {
    this.write({ deployment, meta: this.metaOf(deployment.id), revisions: this.revisionsOf(deployment.id), generated: undefined, row: 0 });
  }

  /** Replaces a deployment's metadata, and its revisions when given (nothing when it does not exist); the index does not depend on them. */
  setMeta(id: string, meta: DeploymentMeta, revisions?: readonly RevisionEntry[]): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    const inStep = this.indexVersion === this.entries.version;
    this.entries.set(id, { deployment: entry.deployment, meta, revisions: revisions ?? revisionsIn(entry), generated: undefined, row: 0 });
    if (inStep) this.indexVersion = this.entries.version;
  }

  /** Replaces a revision of its deployment (found by id), or adds it as the newest. */
  setRevision(entry: RevisionEntry): void {
    const revisions = this.revisionsOf(entry.deployment_id);
    const at = revisions.findIndex((r) => r.revision.id === entry.revision.id);
    this.setMeta(entry.deployment_id, this.metaOf(entry.deployment_id), at < 0 ? [entry, ...revisions] : revisions.with(at, entry));
  }

  remove(id: string): void {
    const old = this.byId(id);
    const inStep = this.indexVersion === this.entries.version;
    if (!this.entries.delete(id) || !old) return;
    if (!inStep) return;
    const tenant = this.index.get(old.tenant_id);
    const place = tenant && placeOf(tenant, old);
    if (!tenant || !place || place.at < 0) return;
    place.list.splice(place.at, 1);
    tenant.nameText = undefined;
    tenant.byStatus = undefined;
    if (tenant.names.get(old.name) === id) tenant.names.delete(old.name);
    this.indexVersion = this.entries.version;
  }

  nameTaken(tenantId: string, name: string): boolean {
    return this.indexed(tenantId).names.has(name);
  }

  /**
   * The first position ≥ `from` (newest-first, as sortedFor) whose name contains `needle`, or the
   * length when none does. One indexOf over every name of the tenant joined in list order, built once
   * per write: a name filter that matches nothing costs one string search, not a test per record.
   */
  nextNameMatch(tenantId: string, needle: string, from: number): number {
    const tenant = this.indexed(tenantId);
    const count = inOrder(tenant).length;
    if (from >= count || needle.includes("\n")) return count;
    if (!tenant.nameText) {
      const names = tenant.view.slice(0, count).map((d) => d.name);
      const starts = new Int32Array(count);
      let at = 0;
      names.forEach((name, i) => {
        starts[i] = at;
        at += name.length + 1;
      });
      tenant.nameText = { text: names.join("\n"), starts };
    }
    const { text, starts } = tenant.nameText;
    const pos = text.indexOf(needle, starts[from]);
    if (pos < 0) return count;
    let lo = from;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((starts[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * A tenant's deployments that have `status`, newest first (as sortedFor). Built on demand, one pass
   * over the tenant, and kept until the next write: a status filter then walks only the deployments
   * it can match instead of every one newer than its page (a status few have, under many newer
   * deployments, walked them all on every request).
   */
  withStatus(tenantId: string, status: string): readonly Deployment[] {
    const tenant = this.indexed(tenantId);
    if (!tenant.byStatus) {
      const all = inOrder(tenant);
      tenant.byStatus = new Map();
      for (let i = all.length - 1; i >= 0; i--) {
        const d = all[i] as Deployment;
        const list = tenant.byStatus.get(d.status);
        if (list) list.push(d);
        else tenant.byStatus.set(d.status, [d]);
      }
    }
    return tenant.byStatus.get(status) ?? [];
  }

  /** A tenant's deployments, newest first (`created_at` desc, then `id` asc), without a copy. */
  sortedFor(tenantId: string): NewestFirst<Deployment> {
    const tenant = this.indexed(tenantId);
    inOrder(tenant);
    return tenant.view;
  }

  /**
   * Stores a deployment and follows it in the index: a replacement keeps its place (created_at and id
   * never change), a new deployment is appended when it is the newest of all and otherwise waits in
   * the tenant's `unsorted` until a read needs the order (inOrder). Writes while
   * the index is already out of step (a bulk load before any read) only touch the collection: the
   * index is built once, on the next read, instead of once per record; those of a generated set
   * (`bulk`) are added to it (Collection.add: into its map on the next read too).
   */
  private write(stored: StoredDeployment, bulk = false): void {
    const { deployment } = stored;
    if (this.indexVersion !== this.entries.version) {
      if (bulk) this.entries.add(deployment.id, stored);
      else this.entries.set(deployment.id, stored);
      return;
    }
    const old = this.byId(deployment.id);
    this.entries.set(deployment.id, stored);
    const tenant = this.index.get(deployment.tenant_id) ?? (old ? undefined : this.emptyTenant(deployment.tenant_id));
    if (!tenant) return;
    tenant.nameText = undefined;
    tenant.byStatus = undefined;
    if (old) {
      const place = old.tenant_id === deployment.tenant_id && old.created_at === deployment.created_at ? placeOf(tenant, old) : undefined;
      if (!place || place.at < 0) return;
      place.list[place.at] = deployment;
      if (old.name !== deployment.name) {
        if (tenant.names.get(old.name) === deployment.id) tenant.names.delete(old.name);
        tenant.names.set(deployment.name, deployment.id);
      }
    } else {
      const list = tenant.oldestFirst;
      const last = list[list.length - 1];
      if (!tenant.unsorted.length && (!last || oldestFirst(last, deployment) <= 0)) list.push(deployment);
      else tenant.unsorted.push(deployment);
      tenant.names.set(deployment.name, deployment.id);
    }
    this.indexVersion = this.entries.version;
  }

  private emptyTenant(tenantId: string): TenantIndex {
    const tenant = tenantIndex([]);
    this.index.set(tenantId, tenant);
    return tenant;
  }

  private indexed(tenantId: string): TenantIndex {
    if (this.indexVersion !== this.entries.version) {
      const byTenant = new Map<string, Deployment[]>();
      for (const { deployment: d } of this.entries.values()) {
        const list = byTenant.get(d.tenant_id);
        if (list) list.push(d);
        else byTenant.set(d.tenant_id, [d]);
      }
      this.index = new Map([...byTenant].map(([tenant, list]) => [tenant, tenantIndex(list.sort(oldestFirst))]));
      this.indexVersion = this.entries.version;
    }
    return this.index.get(tenantId) ?? this.emptyTenant(tenantId);
  }
}

interface TenantIndex {
  /**
   * Oldest first, so a new deployment that is the newest of all is an append. Read it through
   * inOrder(), which first sorts in the deployments waiting in `unsorted`.
   */
  oldestFirst: Deployment[];
  /**
   * New deployments not in `oldestFirst` yet, in the order they came: those that are not the newest
   * of all. With the mock's clock standing still (the default), every create has the same
   * created_at and its place among them is by id, anywhere in the list: splicing each one in moved
   * half the list per create (at 80,000 deployments ~75 µs, most of a create's CPU, and growing).
   */
  unsorted: Deployment[];
  view: NewestFirst<Deployment>;
  /** name → id */
  names: Map<string, string>;
  /** Names in list order joined by newlines, and where each starts (nextNameMatch); built on demand. */
  nameText?: { text: string; starts: Int32Array };
  /** Deployments by status, newest first (withStatus); built on demand. */
  byStatus?: Map<string, Deployment[]>;
}

function tenantIndex(oldest: Deployment[]): TenantIndex {
  return { oldestFirst: oldest, unsorted: [], view: new NewestFirst(oldest), names: new Map(oldest.map((d) => [d.name, d.id])) };
}

/**
 * A tenant's deployments oldest first, with those waiting in `unsorted` put in their places: a few
 * spliced in one by one (a memmove each, as a create did before), more in one merge of the two
 * sorted lists (a read after k creates costs n + k log k, once, where splicing cost k × n).
 */
function inOrder(tenant: TenantIndex): Deployment[] {
  const waiting = tenant.unsorted;
  if (!waiting.length) return tenant.oldestFirst;
  tenant.unsorted = [];
  const list = tenant.oldestFirst;
  if (waiting.length <= SPLICED) {
    for (const d of waiting) list.splice(insertionPoint(list, d), 0, d);
    return list;
  }
  waiting.sort(oldestFirst);
  // Everything before the first waiting one's place is copied in one go.
  let i = insertionPoint(list, waiting[0] as Deployment);
  const merged = list.slice(0, i);
  let j = 0;
  while (i < list.length || j < waiting.length) {
    merged.push(j >= waiting.length || (i < list.length && oldestFirst(list[i] as Deployment, waiting[j] as Deployment) <= 0) ? (list[i++] as Deployment) : (waiting[j++] as Deployment));
  }
  tenant.oldestFirst = merged;
  tenant.view = new NewestFirst(merged);
  return merged;
}

/** Waiting deployments inOrder splices in rather than merging: a merge walks the whole list. */
const SPLICED = 16;

/** A read-only newest-first view of an oldest-first array (shares it; no copy). */
export class NewestFirst<T> {
  constructor(private readonly oldest: readonly T[]) {}

  get length(): number {
    return this.oldest.length;
  }

  at(i: number): T | undefined {
    return i >= 0 && i < this.oldest.length ? this.oldest[this.oldest.length - 1 - i] : undefined;
  }

  slice(start: number, end: number): T[] {
    const out: T[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.oldest.length); i++) out.push(this.oldest[this.oldest.length - 1 - i] as T);
    return out;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.oldest.length - 1; i >= 0; i--) yield this.oldest[i] as T;
  }
}

/**
 * Where `d` is in a tenant's index: among those waiting to be sorted in (looked for from the newest:
 * a create's own update, its first revision, comes next), or in the sorted list. `at` is -1 if absent.
 */
function placeOf(tenant: TenantIndex, d: Deployment): { list: Deployment[]; at: number } {
  const waiting = tenant.unsorted.lastIndexOf(d);
  return waiting >= 0 ? { list: tenant.unsorted, at: waiting } : { list: tenant.oldestFirst, at: positionOf(tenant.oldestFirst, d) };
}

/** Where `d` (same created_at and id) sits in an oldest-first list: binary search, -1 if absent. */
function positionOf(list: readonly Deployment[], d: Deployment): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = oldestFirst(list[mid] as Deployment, d);
    if (c === 0) return (list[mid] as Deployment).id === d.id ? mid : -1;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The index before which `d` goes in an oldest-first list (after every record that sorts before it). */
function insertionPoint(list: readonly Deployment[], d: Deployment): number {
  let lo = 0;
  let hi = list.length;
  if (hi > 0 && oldestFirst(list[hi - 1] as Deployment, d) <= 0) return hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (oldestFirst(list[mid] as Deployment, d) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function oldestFirst(a: Deployment, b: Deployment): number {
  return newestFirst(b, a);
}

/** `created_at` descending (epoch ms), then `id` ascending. */
export function newestFirst(a: { created_at: number; id: string }, b: { created_at: number; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
