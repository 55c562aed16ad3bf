import type { MockContext } from "../context.js";
import { formatTimestamp, inClockRange } from "../core/clock.js";
import { uuid5, uuidBytes } from "../core/random.js";
import type { TraceRunCreate, TraceRunUpdate } from "../schemas/types.gen.js";
import { TRACING_TENANT_ID } from "./feedback-config-routes.js";

/** How many runs the mock keeps; past it the oldest go first and are counted (docs/tracing.md). */
export const DEFAULT_MAX_TRACE_RUNS = 10_000;
/** How many bytes of run payloads (inputs, outputs, events, attachments…) it keeps, likewise. */
export const DEFAULT_MAX_TRACE_BYTES = 64 * 1024 * 1024;

/** An attachment part as kept: its type and bytes. */
export interface StoredAttachment {
  content_type: string;
  data: Buffer;
}

/** A traced run as stored: the client's fields, times in epoch ms (formatted at the edge). */
export interface StoredTraceRun {
  id: string;
  trace_id: string;
  parent_run_id: string | null;
  dotted_order: string;
  name: string;
  run_type: string;
  start_time: number;
  end_time: number | null;
  /** The microseconds past the millisecond the client sent (0–999): times answer as they were sent. */
  start_us: number;
  end_us: number;
  inputs: Record<string, unknown> | null;
  outputs: Record<string, unknown> | null;
  error: string | null;
  extra: Record<string, unknown> | null;
  events: unknown[] | null;
  serialized: Record<string, unknown> | null;
  tags: string[] | null;
  reference_example_id: string | null;
  session_id: string;
  session_name: string;
  attachments: Record<string, StoredAttachment>;
  /** The payload's size in bytes as counted toward the byte cap. */
  size: number;
}

/** A tracing project (LangSmith's "session"). */
export interface StoredSession {
  id: string;
  name: string;
  description: string | null;
  extra: Record<string, unknown> | null;
  reference_dataset_id: string | null;
  start_time: number;
}

/** A run create with its sizes measured by whoever read it (the multipart reader knows each part's bytes). */
export interface IngestCreate {
  run: TraceRunCreate;
  attachments?: Record<string, StoredAttachment>;
  size: number;
}

export interface IngestUpdate {
  id: string;
  update: TraceRunUpdate;
  attachments?: Record<string, StoredAttachment>;
  size: number;
}

/** Names the projects of the mock's tenant get a stable id from (same name → same id in every mock). */
const SESSION_NAMESPACE = uuidBytes("6f1f3d0e-5c55-4c1c-9b5e-7a1a7c0de000");

/**
 * The runs the tracing service captured and the projects they went to, in one mock. Bounded: at most
 * `maxRuns` runs and `maxBytes` of payload, updates waiting for their run included (and those at most a
 * tenth of either); past a cap the oldest are dropped, and counted. Reset with scope "traces" (and "all").
 */
export class TraceStore {
  private readonly runs = new Map<string, StoredTraceRun>();
  /** Updates that arrived before their run (a client's batches may cross): applied when it comes. */
  private readonly early = new Map<string, IngestUpdate[]>();
  /** How many updates wait and their bytes: they hold memory as runs do, so they count toward the caps. */
  private earlyCount = 0;
  private earlyBytes = 0;
  private readonly sessions = new Map<string, StoredSession>();
  private bytes = 0;
  /** Runs and waiting updates dropped to stay within the caps since the last reset. */
  dropped = 0;
  maxRuns = DEFAULT_MAX_TRACE_RUNS;
  maxBytes = DEFAULT_MAX_TRACE_BYTES;

  constructor(private readonly ctx: MockContext) {}

  get size(): number {
    return this.runs.size;
  }

  get(id: string): StoredTraceRun | undefined {
    return this.runs.get(id);
  }

  values(): IterableIterator<StoredTraceRun> {
    return this.runs.values();
  }

  clear(): void {
    this.runs.clear();
    this.early.clear();
    this.earlyCount = 0;
    this.earlyBytes = 0;
    this.sessions.clear();
    this.bytes = 0;
    this.dropped = 0;
    this.ctx.events.emit("trace.cleared", () => ({}));
  }

  /** The project of that name, made on first use as LangSmith does when a run names it. */
  session(name: string): StoredSession {
    for (const s of this.sessions.values()) if (s.name === name) return s;
    return this.addSession({ id: uuid5(name, SESSION_NAMESPACE), name, description: null, extra: null, reference_dataset_id: null, start_time: this.ctx.clock.now() });
  }

  sessionById(id: string): StoredSession | undefined {
    return this.sessions.get(id);
  }

  sessionList(): StoredSession[] {
    return [...this.sessions.values()];
  }

  addSession(session: StoredSession): StoredSession {
    this.sessions.set(session.id, session);
    return session;
  }

  /** Stores a new run; a run whose id is stored already is replaced by it (the client retried). */
  create(input: IngestCreate): StoredTraceRun {
    const body = input.run;
    const id = (body.id ?? this.ctx.random.uuid4()).toLowerCase();
    const parentId = body.parent_run_id?.toLowerCase() ?? null;
    const parent = parentId ? this.runs.get(parentId) : undefined;
    const start = toMs(body.start_time) ?? this.ctx.clock.now();
    const session = this.resolveSession(body.session_id, body.session_name, parent);
    const previous = this.runs.get(id);
    let run: StoredTraceRun = {
      id,
      trace_id: body.trace_id?.toLowerCase() ?? parent?.trace_id ?? id,
      parent_run_id: parentId,
      dotted_order: body.dotted_order ?? dottedOrder(parent?.dotted_order, start, id),
      name: body.name,
      run_type: body.run_type,
      start_time: start,
      end_time: toMs(body.end_time) ?? null,
      start_us: microsOf(body.start_time),
      end_us: microsOf(body.end_time),
      inputs: body.inputs ?? null,
      outputs: body.outputs ?? null,
      error: body.error ?? null,
      extra: body.extra ?? null,
      events: body.events ?? null,
      serialized: body.serialized ?? null,
      tags: body.tags ?? null,
      reference_example_id: body.reference_example_id?.toLowerCase() ?? null,
      session_id: session.id,
      session_name: session.name,
      attachments: input.attachments ?? {},
      size: input.size,
    };
    for (const update of this.early.get(id) ?? []) {
      run = applyUpdate(run, update, this);
      this.earlyCount--;
      this.earlyBytes -= update.size;
    }
    this.early.delete(id);
    if (previous) {
      this.bytes -= previous.size;
      this.runs.delete(id);
    }
    this.keep(run);
    this.ctx.events.emit(previous ? "trace.updated" : "trace.recorded", () => ({ id: run.id, trace_id: run.trace_id, name: run.name }));
    return run;
  }

  /** Applies an update to its run; one for a run not seen yet waits for it. Returns false when it waits. */
  update(input: IngestUpdate): boolean {
    const id = input.id.toLowerCase();
    const run = this.runs.get(id);
    if (!run) {
      const waiting = this.early.get(id);
      if (waiting) waiting.push(input);
      else this.early.set(id, [input]);
      this.earlyCount++;
      this.earlyBytes += input.size;
      this.trim();
      return false;
    }
    const next = applyUpdate(run, input, this);
    this.bytes += next.size - run.size;
    this.runs.set(id, next);
    this.trim();
    this.ctx.events.emit("trace.updated", () => ({ id, trace_id: next.trace_id, name: next.name }));
    return true;
  }

  private resolveSession(sessionId: string | null | undefined, sessionName: string | null | undefined, parent: StoredTraceRun | undefined): StoredSession {
    const byId = sessionId ? this.sessions.get(sessionId.toLowerCase()) : undefined;
    if (byId) return byId;
    if (sessionName) return this.session(sessionName);
    if (parent) return this.sessions.get(parent.session_id) ?? this.session(parent.session_name);
    if (sessionId) return this.addSession({ id: sessionId.toLowerCase(), name: sessionId.toLowerCase(), description: null, extra: null, reference_dataset_id: null, start_time: this.ctx.clock.now() });
    return this.session("default");
  }

  private keep(run: StoredTraceRun): void {
    this.runs.set(run.id, run);
    this.bytes += run.size;
    this.trim();
  }

  /**
   * Drops the oldest waiting updates while they pass their share, a tenth of either cap (an update
   * whose run never comes must not crowd out the runs), then the oldest runs while runs and waiting
   * updates together pass a cap (never the run just stored, unless it alone is over).
   */
  private trim(): void {
    while (this.earlyCount > Math.ceil(this.maxRuns / 10) || this.earlyBytes > this.maxBytes / 10) {
      // The first update of the first id is the oldest of all: ids keep the order their first came in.
      const [id, waiting] = this.early.entries().next().value as [string, IngestUpdate[]];
      const oldest = waiting.shift() as IngestUpdate;
      if (!waiting.length) this.early.delete(id);
      this.earlyCount--;
      this.earlyBytes -= oldest.size;
      this.dropped++;
    }
    while ((this.runs.size + this.earlyCount > this.maxRuns || this.bytes + this.earlyBytes > this.maxBytes) && this.runs.size > 0) {
      const [oldestId, oldest] = this.runs.entries().next().value as [string, StoredTraceRun];
      this.runs.delete(oldestId);
      this.bytes -= oldest.size;
      this.dropped++;
    }
  }
}

function applyUpdate(run: StoredTraceRun, input: IngestUpdate, store: TraceStore): StoredTraceRun {
  const u = input.update;
  const next: StoredTraceRun = { ...run, size: run.size + input.size };
  if (u.name != null) next.name = u.name;
  if (u.end_time !== undefined) {
    next.end_time = toMs(u.end_time) ?? null;
    next.end_us = microsOf(u.end_time);
  }
  if (u.inputs !== undefined) next.inputs = u.inputs;
  if (u.outputs !== undefined) next.outputs = u.outputs;
  if (u.error !== undefined) next.error = u.error;
  if (u.extra !== undefined) next.extra = u.extra;
  if (u.events !== undefined) next.events = u.events;
  if (u.tags !== undefined) next.tags = u.tags;
  if (u.dotted_order) next.dotted_order = u.dotted_order;
  if (u.session_name && u.session_name !== run.session_name) {
    const session = store.session(u.session_name);
    next.session_id = session.id;
    next.session_name = session.name;
  }
  if (input.attachments) next.attachments = { ...run.attachments, ...input.attachments };
  return next;
}

/**
 * A run time as the clients send it: ISO 8601 text (the forms pydantic reads: `T` or a space, up to six
 * fraction digits, naive text read as UTC, as LangSmith does) or epoch milliseconds. Anything V8's lenient
 * Date.parse would guess at ("Jan 15", "1", 30 February) is none.
 */
const ISO_TIME = /^(?<y>\d{4})-(?<mo>0[1-9]|1[0-2])-(?<d>0[1-9]|[12]\d|3[01])(?:[Tt ](?<h>[01]\d|2[0-3]):(?<mi>[0-5]\d)(?::(?<s>[0-5]\d)(?:\.(?<f>\d{1,6}))?)?(?<z>[Zz]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;

/**
 * A client's instant in epoch ms, or undefined when it is no time the clock can hold (docs/decisions/
 * tracing.md): the routes refuse such a value with a 422 before anything is stored, so the store never
 * writes a time no timestamp (or `dotted_order`) can say.
 */
export function toMs(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "number") return inClockRange(value) ? value : undefined;
  const t = ISO_TIME.exec(value)?.groups;
  if (!t || Number(t.d) > daysIn(Number(t.y), Number(t.mo))) return undefined;
  const zone = !t.z || /z/i.test(t.z) ? "Z" : `${t.z.slice(0, 3)}:${t.z.slice(-2)}`;
  // Rebuilt in the one form Date.parse reads exactly, whatever form was sent.
  const ms = Date.parse(`${t.y}-${t.mo}-${t.d}T${t.h ?? "00"}:${t.mi ?? "00"}:${t.s ?? "00"}.${(t.f ?? "").padEnd(3, "0").slice(0, 3)}${zone}`);
  return inClockRange(ms) ? ms : undefined;
}

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The microseconds past the millisecond of ISO text (`…:00.123456` → 456); 0 for numbers. */
export function microsOf(value: string | number | null | undefined): number {
  if (typeof value !== "string") return 0;
  return Number((ISO_TIME.exec(value)?.groups?.f ?? "").slice(3).padEnd(3, "0"));
}

/** A run's time as the service answers it, microseconds included. */
export function formatRunTime(ms: number, micros: number): string {
  const text = formatTimestamp(ms);
  return micros ? text.replace(/000\+00:00$/, `${String(micros).padStart(3, "0")}+00:00`) : text;
}

/** LangSmith's dotted order: `<parent's>.<start as YYYYMMDDTHHMMSSffffffZ><id>`. */
export function dottedOrder(parent: string | undefined, startMs: number, id: string, micros = 0): string {
  const stamp = new Date(startMs).toISOString().replace(/[-:]/g, "").replace(/\.(\d{3})Z$/, (_, ms: string) => `${ms}${String(micros).padStart(3, "0")}Z`);
  const own = `${stamp}${id}`;
  return parent ? `${parent}.${own}` : own;
}

/** The `TracerSession` wire form. */
export function sessionResponse(s: StoredSession, runs: Iterable<StoredTraceRun>) {
  let count = 0;
  let last: number | null = null;
  for (const r of runs) {
    if (r.session_id !== s.id) continue;
    count++;
    if (last === null || r.start_time > last) last = r.start_time;
  }
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    start_time: formatTimestamp(s.start_time),
    end_time: null,
    extra: s.extra,
    tenant_id: TRACING_TENANT_ID,
    reference_dataset_id: s.reference_dataset_id,
    default_dataset_id: null,
    run_count: count,
    last_run_start_time: last === null ? null : formatTimestamp(last),
    trace_tier: "longlived",
  };
}

const stores = new WeakMap<MockContext, TraceStore>();

/** The mock's trace store, made on first use; reset with scope "traces". */
export function traceStoreOf(ctx: MockContext): TraceStore {
  let store = stores.get(ctx);
  if (!store) {
    const made = new TraceStore(ctx);
    stores.set(ctx, made);
    ctx.onReset("traces", () => made.clear());
    store = made;
  }
  return store;
}
