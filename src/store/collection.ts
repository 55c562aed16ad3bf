/**
 * A keyed collection of records. Records are never changed in place: an update stores a new object
 * (copy-on-write), so a snapshot is a shallow copy of the map and restoring one is as cheap — that is
 * what makes `reset()` take microseconds instead of re-reading fixtures. Treat records you read as
 * read-only; build a new one and `set()` it to change anything.
 */
export class Collection<T> {
  private items = new Map<string, T>();
  private saved = new Map<string, T>();
  /** Incremented on every write; derived views (sorted lists, indexes) cache against it. */
  version = 0;

  constructor(readonly name: string) {}

  get size(): number {
    return this.items.size;
  }

  get(id: string): T | undefined {
    return this.items.get(id);
  }

  has(id: string): boolean {
    return this.items.has(id);
  }

  set(id: string, record: T): T {
    this.items.set(id, record);
    this.version++;
    return record;
  }

  delete(id: string): boolean {
    const deleted = this.items.delete(id);
    if (deleted) this.version++;
    return deleted;
  }

  clear(): void {
    this.items.clear();
    this.version++;
  }

  /** Records in insertion order. */
  values(): IterableIterator<T> {
    return this.items.values();
  }

  find(predicate: (record: T) => boolean): T | undefined {
    for (const record of this.items.values()) if (predicate(record)) return record;
    return undefined;
  }

  filter(predicate: (record: T) => boolean): T[] {
    const out: T[] = [];
    for (const record of this.items.values()) if (predicate(record)) out.push(record);
    return out;
  }

  snapshot(): void {
    this.saved = new Map(this.items);
  }

  restore(): void {
    this.items = new Map(this.saved);
    this.version++;
  }
}
