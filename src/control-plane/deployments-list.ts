import type { StoredDeployment } from "./deployments-store.js";

/** The list filters that compare a field with one or more values. */
export type EqualityField = "status" | "image_version" | "deployment_type" | "remote_reconciled" | "tag_value_ids";

/** What each equality filter compares: one value, or (tags) several, any of which may match. */
const FIELDS: Record<EqualityField, (entry: StoredDeployment) => unknown> = {
  status: ({ deployment }) => deployment.status,
  image_version: ({ deployment }) => deployment.image_version,
  deployment_type: ({ deployment }) => deployment.source_config.deployment_type,
  remote_reconciled: ({ meta }) => meta.remote_reconciled,
  tag_value_ids: ({ meta }) => meta.tag_value_ids,
};

/** Whether the entry's `field` holds any of `values`. */
export function holdsAny(entry: StoredDeployment, field: EqualityField, values: ReadonlySet<unknown>): boolean {
  const value = FIELDS[field](entry);
  return Array.isArray(value) ? value.some((one) => values.has(one)) : values.has(value);
}

/**
 * One tenant's deployments in list order (newest first), with what lets a filtered page skip the
 * records that cannot match: for each equality field, the positions holding each value; for
 * `name_contains`, the names as one text. Derived from the collection on the first list after a write
 * and dropped at the next (DeploymentStore.listFor), so nothing here is kept in step with writes.
 * With 100,000 deployments, testing every record takes 50–100 ms: they sit all over the heap, and a
 * generated name is searched slower than one text.
 */
export class DeploymentList {
  private readonly indexes = new Map<EqualityField, Map<unknown, number[]>>();
  private names: { text: string; starts: number[] } | undefined;

  constructor(readonly entries: readonly StoredDeployment[]) {}

  /** Positions (ascending) whose `field` holds any of `values`. */
  positionsOf(field: EqualityField, values: ReadonlySet<unknown>): readonly number[] {
    const index = this.index(field);
    const lists = [...values].map((value) => index.get(value) ?? []);
    return lists.length === 1 ? (lists[0] as number[]) : [...new Set(lists.flat())].sort((a, b) => a - b);
  }

  /** The first position from `from` on whose name contains `needle`, or -1. */
  nextNamed(needle: string, from: number): number {
    // A name holds no newline, so a hit on the text is a hit on one name.
    if (needle.includes("\n") || from >= this.entries.length) return -1;
    const { text, starts } = (this.names ??= nameText(this.entries));
    const at = text.indexOf(needle, starts[from]);
    if (at < 0) return -1;
    // The last name starting at or before the hit.
    let [low, high] = [from, this.entries.length - 1];
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private index(field: EqualityField): Map<unknown, number[]> {
    let index = this.indexes.get(field);
    if (!index) {
      index = new Map();
      const valueOf = FIELDS[field];
      for (let at = 0; at < this.entries.length; at++) {
        const value = valueOf(this.entries[at] as StoredDeployment);
        for (const key of Array.isArray(value) ? value : [value]) {
          const positions = index.get(key);
          if (positions) positions.push(at);
          else index.set(key, [at]);
        }
      }
      this.indexes.set(field, index);
    }
    return index;
  }
}

/** The names joined by newlines, and where each starts. */
function nameText(entries: readonly StoredDeployment[]): { text: string; starts: number[] } {
  const starts: number[] = [];
  let at = 0;
  for (const { deployment } of entries) {
    starts.push(at);
    at += deployment.name.length + 1;
  }
  return { text: entries.map(({ deployment }) => deployment.name).join("\n"), starts };
}
