import type { DeploymentListQuery as DeploymentListQueryInput, RevisionListQuery as RevisionListQueryInput } from "../schemas/types.gen.js";
import { holdsAny, type EqualityField } from "./deployments-list.js";
import { newestFirst, type Deployment, type DeploymentStore, type RevisionEntry, type StoredDeployment } from "./deployments-store.js";

/** `GET /v2/deployments` query after validation (control-plane/deployment.json#/$defs/DeploymentListQuery): defaults filled in. */
export type DeploymentListQuery = DeploymentListQueryInput & { limit: number; offset: number };

/** `GET …/revisions` query after validation (control-plane/revision.json#/$defs/RevisionListQuery): defaults filled in. */
export type RevisionListQuery = RevisionListQueryInput & { limit: number; offset: number };

export interface Page<T> {
  resources: T[];
  /** The offset of the next page (DESIGN §2). */
  offset: number;
}

/**
 * One page of a tenant's deployments, newest first. A filtered page walks only the positions where
 * the query's narrowest equality filter holds (or every position), skips to the next name with
 * `name_contains`, tests the other filters on each, and stops as soon as the page is full.
 */
export function listDeployments(store: DeploymentStore, tenantId: string, query: DeploymentListQuery): Page<Deployment> {
  const filters = equalityFilters(query);
  // An empty string filters nothing, as the CLI's `name_contains=` shows ("list all").
  const needle = query.name_contains?.toLowerCase() || undefined;
  const matches = (entry: StoredDeployment) => filters.every(([field, values]) => holdsAny(entry, field, values));
  // A list of ids is looked up directly rather than scanned for.
  const ids = commaList(query.deployment_ids, (id) => id.toLowerCase());
  if (ids) {
    const entries = [...ids].flatMap((id) => store.entryIn(tenantId, id) ?? []).sort((a, b) => newestFirst(a.deployment, b.deployment));
    // Stored names match NAME_PATTERN (lowercase), fixtures and creates alike: no per-record lowercasing.
    return deployments(page(entries, (entry) => (!needle || entry.deployment.name.includes(needle)) && matches(entry), query));
  }
  const list = store.listFor(tenantId);
  if (!filters.length && !needle) return deployments(page(list.entries, undefined, query));
  const narrowest = filters.map(([field, values]) => list.positionsOf(field, values)).reduce<readonly number[] | undefined>((a, b) => (a && a.length <= b.length ? a : b), undefined);
  const count = narrowest ? narrowest.length : list.entries.length;
  const resources: Deployment[] = [];
  let skipped = 0;
  // The next position from `at` on whose name holds the needle: one search of the names finds it
  // for every position up to it.
  let named = -1;
  for (let i = 0; i < count && resources.length < query.limit; i++) {
    const at = narrowest ? (narrowest[i] as number) : i;
    if (needle) {
      if (named < at) named = list.nextNamed(needle, at);
      if (named < 0) break;
      if (named > at) continue;
    }
    const entry = list.entries[at] as StoredDeployment;
    if (!matches(entry)) continue;
    if (skipped < query.offset) skipped++;
    else resources.push(entry.deployment);
  }
  return { resources, offset: query.offset + resources.length };
}

function deployments(page: Page<StoredDeployment>): Page<Deployment> {
  return { resources: page.resources.map((entry) => entry.deployment), offset: page.offset };
}

/** The query's equality filters, each with the values it accepts (any of them). */
function equalityFilters(query: DeploymentListQuery): [EqualityField, ReadonlySet<unknown>][] {
  const filters: [EqualityField, ReadonlySet<unknown>][] = [];
  if (query.status) filters.push(["status", new Set([query.status])]);
  if (query.image_version) filters.push(["image_version", new Set([query.image_version])]);
  if (query.deployment_type) filters.push(["deployment_type", new Set([query.deployment_type])]);
  if (typeof query.remote_reconciled === "boolean") filters.push(["remote_reconciled", new Set([query.remote_reconciled])]);
  const tags = commaList(query.tag_value_ids, (id) => id.toLowerCase());
  if (tags) filters.push(["tag_value_ids", tags]);
  return filters;
}

/** A deployment's revisions, newest first, filtered by `status` (comma-separated, any) and `remote_reconciled`. */
export function listRevisions(revisions: readonly RevisionEntry[], query: RevisionListQuery): Page<RevisionEntry> {
  const statuses = commaList(query.status);
  const checks: ((entry: RevisionEntry) => boolean)[] = [];
  if (statuses) checks.push((entry) => statuses.has(entry.revision.status));
  if (typeof query.remote_reconciled === "boolean") checks.push((entry) => entry.remote_reconciled === query.remote_reconciled);
  return page(revisions, checks.length ? (entry) => checks.every((check) => check(entry)) : undefined, query);
}

/** One page of a sorted list: the items matching from `offset`, and the offset of the next page. */
export function page<T>(sorted: readonly T[], matches: ((item: T) => boolean) | undefined, query: { limit: number; offset: number }): Page<T> {
  if (!matches) {
    const resources = sorted.slice(query.offset, query.offset + query.limit);
    return { resources, offset: query.offset + resources.length };
  }
  const resources: T[] = [];
  let skipped = 0;
  for (const item of sorted) {
    if (!matches(item)) continue;
    if (skipped < query.offset) skipped++;
    else if (resources.push(item) === query.limit) break;
  }
  return { resources, offset: query.offset + resources.length };
}

/** A comma-separated parameter as a set; undefined (no filter) when it names nothing. */
function commaList(text: string | null | undefined, normalize: (item: string) => string = (item) => item): Set<string> | undefined {
  if (typeof text !== "string") return undefined;
  const items = text.split(",").map((item) => normalize(item.trim())).filter(Boolean);
  return items.length ? new Set(items) : undefined;
}
