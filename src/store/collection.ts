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
  /**
   * Records stored by add() and not in the map yet, with their ids, in the order they came. A bulk
   * load (100,000 generated deployments) leaves them here: putting each in the map as it was made
   * was a tenth of the load (hashing its new id and a miss in a table megabytes wide, between one
   * record's allocations and the next). The first access after puts them in, in order (settle), so
   * every method sees the map set() would have made. A snapshot taken meanwhile includes them
   * (savedPending); add() after one is set().
   */
  private pending: Pending<T> = { ids: [], records: [] };
  private savedPending: Pending<T> = { ids: [], records: [] };
  /** Incremented on every write; derived views (sorted lists, indexes) cache against it. */
  version = 0;
  private readonly listeners = new Set<WriteListener<T>>();
  /** The listeners as one call, or none: one optional call per write keeps writes cheap when nobody watches. */
  private onWrite: WriteListener<T> | undefined;
  /**
   * Whether onWrite is given the record a write replaced, asked at each write. Finding it is a lookup
   * per write — a good part of loading 100,000 generated records — so a listener that does not use
   * it (or not at the moment: nobody follows the change feed) says so.
   */
  onWriteTakesPrevious: () => boolean = () => true;

  constructor(readonly name: string) {}

  /**
   * Tells `listener` of every write from now on (id and new record, undefined for a delete; no id for
   * clear or restore) — the change feed and `waitFor` each subscribe. Returns the unsubscribe.
   */
  subscribe(listener: WriteListener<T>): () => void {
    this.listeners.add(listener);
    this.wire();
    return () => {
      if (this.listeners.delete(listener)) this.wire();
    };
  }

  private wire(): void {
    const listeners = [...this.listeners];
    this.onWrite =
      listeners.length === 0
        ? undefined
        : listeners.length === 1
          ? listeners[0]
          : (id, record, previous) => {
              for (const listener of listeners) listener(id, record, previous);
            };
  }

  get size(): number {
    this.settle();
    return this.items.size;
  }

  get(id: string): T | undefined {
    this.settle();
    return this.items.get(id);
  }

  has(id: string): boolean {
    this.settle();
    return this.items.has(id);
  }

  set(id: string, record: T): T {
    this.settle();
    const previous = this.onWrite && this.onWriteTakesPrevious() ? this.items.get(id) : undefined;
    this.own().set(id, record);
    this.version++;
    this.onWrite?.(id, record, previous);
    return record;
  }

  /**
   * set() for a bulk load, which reads nothing until it is done: the record goes into the map with
   * the next access (see `pending`). onWrite is told now, without the record it replaced (add() is
   * set() while onWrite wants that one).
   */
  add(id: string, record: T): void {
    if (this.shared || (this.onWrite && this.onWriteTakesPrevious())) {
      this.set(id, record);
      return;
    }
    this.pending.ids.push(id);
    this.pending.records.push(record);
    this.version++;
    this.onWrite?.(id, record, undefined);
  }

  delete(id: string): boolean {
    this.settle();
    if (!this.items.has(id)) return false;
    const previous = this.onWrite && this.onWriteTakesPrevious() ? this.items.get(id) : undefined;
    const deleted = this.own().delete(id);
    if (deleted) {
      this.version++;
      this.onWrite?.(id, undefined, previous);
    }
    return deleted;
  }

  clear(): void {
    this.items = new Map();
    this.pending = { ids: [], records: [] };
    this.shared = false;
    this.version++;
    this.onWrite?.(undefined, undefined, undefined);
  }

  /** Records in insertion order. */
  values(): IterableIterator<T> {
    this.settle();
    return this.items.values();
  }

  find(predicate: (record: T) => boolean): T | undefined {
    this.settle();
    for (const record of this.items.values()) if (predicate(record)) return record;
    return undefined;
  }

  filter(predicate: (record: T) => boolean): T[] {
    this.settle();
    const out: T[] = [];
    for (const record of this.items.values()) if (predicate(record)) out.push(record);
    return out;
  }

  snapshot(): void {
    this.saved = this.items;
    this.savedPending = this.pending;
    this.shared = true;
  }

  restore(): void {
    this.items = this.saved;
    this.pending = this.savedPending;
    this.shared = true;
    this.version++;
    this.onWrite?.(undefined, undefined, undefined);
  }

  /**
   * Puts the pending records in the map, in order. Pending since before the snapshot (add() after
   * one is set()), they belong to the saved state as much as to this one, and the map is still the
   * saved one (every write settles first): they go into it in place, for both.
   */
  private settle(): void {
    const { ids, records } = this.pending;
    if (ids.length === 0) return;
    const map = this.items;
    for (let i = 0; i < ids.length; i++) map.set(ids[i] as string, records[i] as T);
    if (this.savedPending === this.pending) this.savedPending = { ids: [], records: [] };
    this.pending = { ids: [], records: [] };
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

/** Ids and records of add()s not in the map yet, in order. */
interface Pending<T> {
  ids: string[];
  records: T[];
}
