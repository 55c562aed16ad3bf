import type { DeploymentListQuery as DeploymentListQueryInput, RevisionListQuery as RevisionListQueryInput } from "../schemas/types.gen.js";
import { newestFirst, type Deployment, type DeploymentStore, type RevisionEntry } from "./deployments-store.js";

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
 * One page of a tenant's deployments, newest first. Walks the cached sorted list, testing each
 * record against the filters and stopping as soon as the page is full: no copy of the collection.
 */
export function listDeployments(store: DeploymentStore, tenantId: string, query: DeploymentListQuery): Page<Deployment> {
  // A list of ids is looked up directly rather than scanned for.
  const ids = commaList(query.deployment_ids, (id) => id.toLowerCase());
  const candidates = ids ? [...ids].flatMap((id) => store.get(tenantId, id) ?? []).sort(newestFirst) : store.sortedFor(tenantId);
  return page(candidates, deploymentFilter(store, query), query);
}

/** A deployment's revisions, newest first, filtered by `status` (comma-separated, any) and `remote_reconciled`. */
export function listRevisions(revisions: readonly RevisionEntry[], query: RevisionListQuery): Page<RevisionEntry> {
  const statuses = commaList(query.status);
  const checks: ((entry: RevisionEntry) => boolean)[] = [];
  if (statuses) checks.push((entry) => statuses.has(entry.revision.status));
  if (typeof query.remote_reconciled === "boolean") checks.push((entry) => entry.remote_reconciled === query.remote_reconciled);
  return page(revisions, checks.length ? (entry) => checks.every((check) => check(entry)) : undefined, query);
}

/** One test for every filter of the query (every deployment of a large tenant may be tested), or undefined when none is set. */
function deploymentFilter(store: DeploymentStore, query: DeploymentListQuery): ((d: Deployment) => boolean) | undefined {
  // An empty string filters nothing, as the CLI's `name_contains=` shows ("list all").
  const needle = query.name_contains?.toLowerCase() || undefined;
  const { status, image_version: version, deployment_type: type } = query;
  const remote = typeof query.remote_reconciled === "boolean" ? query.remote_reconciled : undefined;
  const tags = commaList(query.tag_value_ids, (id) => id.toLowerCase());
  if (!needle && !status && !version && !type && remote === undefined && !tags) return undefined;
  return (d) =>
    // Stored names match NAME_PATTERN (lowercase), fixtures and creates alike: no per-record lowercasing.
    (!needle || d.name.includes(needle)) &&
    (!status || d.status === status) &&
    (!version || d.image_version === version) &&
    (!type || d.source_config.deployment_type === type) &&
    (remote === undefined || store.metaOf(d.id).remote_reconciled === remote) &&
    (!tags || store.metaOf(d.id).tag_value_ids.some((tag) => tags.has(tag)));
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
