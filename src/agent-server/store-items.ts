import type { MockContext } from "../context.js";
import { formatTimestamp, instantAfter, instantAfterClamped } from "../core/clock.js";
import type { StoreItem } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";

/** A stored item: the wire fields plus its expiry and what `query` searches. */
export interface StoreItemRecord {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: number;
  updated_at: number;
  /** Minutes to live (null: forever); reads that refresh the TTL restart it from now. */
  ttl: number | null;
  expires_at: number | null;
  /** `false`: not searched by `query`; a list of field paths: only those; null: the whole value. */
  index: false | string[] | null;
}

const MINUTE = 60_000;

/** Distinct words of a search `query` that count; the rest are ignored (docs/security.md). */
export const MAX_QUERY_WORDS = 64;

/**
 * The agent server's store (`/store/*`): items by namespace and key, expiring on the mock clock. An
 * expired item is removed when it is next looked at, so advancing the clock is enough to expire it.
 */
export class ItemStore {
  constructor(private readonly ctx: MockContext) {}

  private get items() {
    return storeItemsIn(this.ctx);
  }

  private live(): StoreItemRecord[] {
    const now = this.ctx.clock.now();
    for (const item of this.items.filter((i) => i.expires_at !== null && i.expires_at <= now)) this.items.delete(idOf(item.namespace, item.key));
    return [...this.items.values()];
  }

  put(namespace: string[], key: string, value: Record<string, unknown>, ttl: number | null, index: false | string[] | null): void {
    const now = this.ctx.clock.now();
    // A request's ttl was checked (ttlFits); a scenario's write at the clock's last hours ends there.
    const expiresAt = ttl === null ? null : instantAfterClamped(now, ttl * MINUTE);
    const id = idOf(namespace, key);
    this.live();
    const existing = this.items.get(id);
    this.items.set(id, {
      namespace: [...namespace],
      key,
      value,
      created_at: existing?.created_at ?? now,
      updated_at: now,
      ttl,
      expires_at: expiresAt,
      index,
    });
  }

  /** Whether an item put now with this ttl (minutes) expires within the clock's range. */
  ttlFits(ttl: number | null): boolean {
    return ttl === null || instantAfter(this.ctx.clock.now(), ttl * MINUTE) !== undefined;
  }

  get(namespace: string[], key: string, refreshTtl: boolean): StoreItemRecord | undefined {
    this.live();
    const item = this.items.get(idOf(namespace, key));
    return item && refreshTtl ? this.refresh(item) : item;
  }

  delete(namespace: string[], key: string): void {
    this.items.delete(idOf(namespace, key));
  }

  /**
   * Items under a namespace prefix matching `filter` (equality, or `$eq $ne $gt $gte $lt $lte` per
   * field). Without `query`: newest update first. With one: items whose indexed text has any of its
   * words, most words first (the mock's stand-in for semantic search: no embeddings). Only the first
   * MAX_QUERY_WORDS distinct words count, and each item's words are found once per stored version of
   * it, so a search costs the same whatever the size of the query and of the items.
   */
  search(prefix: string[], filter: Record<string, unknown>, query: string | null, limit: number, offset: number, refreshTtl: boolean): StoreItemRecord[] {
    let found = this.live().filter((i) => startsWith(i.namespace, prefix) && matchesFilter(i.value, filter));
    found.sort((a, b) => b.updated_at - a.updated_at);
    if (query) {
      const words = queryWords(query);
      const scored = found.map((item) => {
        const indexed = indexedWords(item);
        let score = 0;
        for (const word of words) if (indexed.has(word)) score++;
        return { item, score };
      });
      found = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score).map((s) => s.item);
    }
    const page = found.slice(offset, offset + limit);
    return refreshTtl ? page.map((i) => this.refresh(i)) : page;
  }

  /** Distinct namespaces (cut to `maxDepth` labels), sorted; `*` in a prefix or suffix matches any label. */
  namespaces(prefix: string[] | undefined, suffix: string[] | undefined, maxDepth: number | undefined, limit: number, offset: number): string[][] {
    const seen = new Map<string, string[]>();
    for (const item of this.live()) {
      const ns = item.namespace;
      if (prefix && !startsWith(ns, prefix)) continue;
      if (suffix && !startsWith([...ns].reverse(), [...suffix].reverse())) continue;
      const cut = maxDepth === undefined ? ns : ns.slice(0, maxDepth);
      seen.set(JSON.stringify(cut), cut);
    }
    const all = [...seen.values()].sort((a, b) => a.join("\u0000").localeCompare(b.join("\u0000")));
    return all.slice(offset, offset + limit);
  }

  private refresh(item: StoreItemRecord): StoreItemRecord {
    if (item.ttl === null) return item;
    // The ttl fitted when the item was put; a read near the clock's last instant ends it there.
    return this.items.set(idOf(item.namespace, item.key), { ...item, expires_at: instantAfterClamped(this.ctx.clock.now(), item.ttl * MINUTE) });
  }
}

/** The `Item` wire form. */
export function itemResponse(i: StoreItemRecord): StoreItem {
  return { namespace: i.namespace, key: i.key, value: i.value, created_at: formatTimestamp(i.created_at), updated_at: formatTimestamp(i.updated_at) };
}

/** The SDKs send a GET's namespace as its labels joined with '.' (labels cannot contain one). */
export function parseNamespace(joined: string | undefined): string[] {
  return joined ? joined.split(".") : [];
}

function idOf(namespace: string[], key: string): string {
  return JSON.stringify([namespace, key]);
}

function startsWith(ns: string[], prefix: string[]): boolean {
  return prefix.length <= ns.length && prefix.every((label, i) => label === "*" || label === ns[i]);
}

/** The first MAX_QUERY_WORDS distinct words of a query, lowercased. */
function queryWords(query: string): Set<string> {
  const words = new Set<string>();
  for (const match of query.toLowerCase().matchAll(/\w+/g)) {
    words.add(match[0]);
    if (words.size === MAX_QUERY_WORDS) break;
  }
  return words;
}

/** The words of an item's indexed fields, by stored value (a put stores a new value object, so a changed item is read again). */
const wordsByValue = new WeakMap<object, { index: StoreItemRecord["index"]; words: Set<string> }>();
const NO_WORDS: ReadonlySet<string> = new Set();

function indexedWords(item: StoreItemRecord): ReadonlySet<string> {
  if (item.index === false) return NO_WORDS;
  const known = wordsByValue.get(item.value);
  if (known && known.index === item.index) return known.words;
  const parts = item.index === null ? [item.value] : item.index.map((path) => path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), item.value));
  const words = new Set(JSON.stringify(parts).toLowerCase().match(/\w+/g) ?? []);
  wordsByValue.set(item.value, { index: item.index, words });
  return words;
}

const OPERATORS: Record<string, (a: unknown, b: unknown) => boolean> = {
  $eq: (a, b) => equal(a, b),
  $ne: (a, b) => !equal(a, b),
  $gt: (a, b) => compare(a, b) > 0,
  $gte: (a, b) => compare(a, b) >= 0,
  $lt: (a, b) => compare(a, b) < 0,
  $lte: (a, b) => compare(a, b) <= 0,
};

function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([field, wanted]) => {
    const actual = Object.hasOwn(value, field) ? value[field] : undefined;
    if (wanted && typeof wanted === "object" && !Array.isArray(wanted) && Object.keys(wanted).every((k) => Object.hasOwn(OPERATORS, k))) {
      return Object.entries(wanted).every(([op, operand]) => (OPERATORS[op] as (a: unknown, b: unknown) => boolean)(actual, operand));
    }
    return equal(actual, wanted);
  });
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return Number.NaN;
}

export const storeItemsIn = declareCollection<StoreItemRecord>("store_items");
