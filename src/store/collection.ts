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
  /**
   * Told of every write (id and new record, undefined for a delete; no id for clear or restore), for
   * the mock's change feed. One optional call per write keeps writes cheap when nobody watches.
   */
  onWrite: ((id: string | undefined, record: T | undefined, previous: T | undefined) => void) | undefined;

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
    const previous = this.onWrite && this.items.get(id);
    this.items.set(id, record);
    this.version++;
    this.onWrite?.(id, record, previous);
    return record;
  }

  delete(id: string): boolean {
    const previous = this.onWrite && this.items.get(id);
    const deleted = this.items.delete(id);
    if (deleted) {
      this.version++;
      this.onWrite?.(id, undefined, previous);
    }
    return deleted;
  }

  clear(): void {
    this.items.clear();
    this.version++;
    this.onWrite?.(undefined, undefined, undefined);
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
    this.onWrite?.(undefined, undefined, undefined);
  }
}
