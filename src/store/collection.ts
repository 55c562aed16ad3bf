/**
 * A keyed collection of records. Records are never changed in place: an update stores a new object
 * (copy-on-write), so a snapshot is the map itself, shared until the first write after it copies the
 * map — that is what makes `reset()` take microseconds instead of re-reading fixtures, and keeps a
 * large generated set from being held twice. Treat records you read as read-only; build a new one
 * and `set()` it to change anything.
 */
export class Collection<T> {
  private items = new Map<string, T>();
  private saved = new Map<string, T>();
  /** `items` is also the snapshot: copy it before changing it. */
  private shared = false;
  /** Incremented on every write; derived views (sorted lists, indexes) cache against it. */
  version = 0;
  private readonly listeners = new Set<WriteListener<T>>();

  constructor(readonly name: string) {}

  /**
   * Tells `listener` of every write from now on (id and new record, undefined for a delete; no id for
   * clear or restore) — the change feed and `waitFor` each subscribe. Returns the unsubscribe.
   */
  subscribe(listener: WriteListener<T>): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private tell(id: string | undefined, record: T | undefined, previous: T | undefined): void {
    for (const listener of this.listeners) listener(id, record, previous);
  }

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
    const previous = this.items.get(id);
    this.own().set(id, record);
    this.version++;
    this.tell(id, record, previous);
    return record;
  }

  delete(id: string): boolean {
    if (!this.items.has(id)) return false;
    const previous = this.items.get(id);
    this.own().delete(id);
    this.version++;
    this.tell(id, undefined, previous);
    return true;
  }

  clear(): void {
    this.items = new Map();
    this.shared = false;
    this.version++;
    this.tell(undefined, undefined, undefined);
  }

  /** Records in insertion order. */
  values(): IterableIterator<T> {
    return this.items.values();
  }

  /** Ids and records in insertion order. */
  entries(): IterableIterator<[string, T]> {
    return this.items.entries();
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
    this.saved = this.items;
    this.shared = true;
  }

  restore(): void {
    this.items = this.saved;
    this.shared = true;
    this.version++;
    this.tell(undefined, undefined, undefined);
  }

  /** The map, safe to write: the first write after a snapshot or restore copies it. */
  private own(): Map<string, T> {
    if (this.shared) {
      this.items = new Map(this.items);
      this.shared = false;
    }
    return this.items;
  }
}

/** What a collection's subscriber is told of a write. */
export type WriteListener<T> = (id: string | undefined, record: T | undefined, previous: T | undefined) => void;
