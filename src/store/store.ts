import { Collection } from "./collection.js";

/**
 * What `reset(scope)` can return to its state right after start:
 * - "store": every resource of the three services (providers, deployments, threads, runs, tokens…)
 * - "feedback": the feedback the tracing service recorded
 */
export type StoreScope = "store" | "feedback";

/**
 * The in-memory state of one mock instance: named collections, each owned by the module that
 * serves it (`declareCollection` below). Collections are created on first use.
 */
export class Store {
  private readonly collections = new Map<string, { collection: Collection<unknown>; scope: StoreScope }>();

  collection<T>(name: string, scope: StoreScope = "store"): Collection<T> {
    let entry = this.collections.get(name);
    if (!entry) {
      entry = { collection: new Collection<unknown>(name), scope };
      this.collections.set(name, entry);
    }
    return entry.collection as Collection<T>;
  }

  /** Remembers the current state of every collection as the one reset() returns to. */
  snapshot(): void {
    for (const { collection } of this.collections.values()) collection.snapshot();
  }

  restore(scope?: StoreScope): void {
    for (const entry of this.collections.values()) if (!scope || entry.scope === scope) entry.collection.restore();
  }
}

/**
 * Declares a collection for the module that owns it: its name (one per store), its reset scope and its
 * record type. What it returns is how the module reaches the collection in a mock:
 * `export const threadsIn = declareCollection<ThreadRecord>("threads")`, then `threadsIn(ctx).get(id)`.
 */
export function declareCollection<T>(name: string, scope: StoreScope = "store"): (owner: { readonly store: Store }) => Collection<T> {
  return (owner) => owner.store.collection<T>(name, scope);
}
