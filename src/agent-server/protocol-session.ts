import type { MockContext } from "../context.js";
import { isPlainObject } from "../core/json.js";
import type { ProtocolEvent, ProtocolNamespace } from "../schemas/types.gen.js";
import { threadsIn } from "./threads.js";

/** Events a thread's session keeps for replay (`since`, `Last-Event-ID`); older ones are dropped first. */
export const PROTOCOL_BUFFER_SIZE = 1000;

/** A namespace's status in the agent tree (`lifecycle` events, `agent.getTree`). */
export type AgentStatus = "started" | "running" | "completed" | "failed" | "interrupted";

export interface AgentTreeNode {
  namespace: ProtocolNamespace;
  status: AgentStatus;
  graph_name: string;
  children?: AgentTreeNode[];
}

/** What one `POST …/stream/events` connection asked for. */
export interface EventFilter {
  channels: ReadonlySet<string>;
  namespaces?: readonly ProtocolNamespace[];
  depth?: number;
}

type Sink = { filter: EventFilter; send: (event: ProtocolEvent) => void };

/**
 * A thread's Protocol v2 session: the events of the runs started through `/commands`, numbered by
 * one `seq` per thread, kept in a bounded buffer for replay and handed to every open event stream
 * whose filter they pass. Streams opened before a run exists stay idle until it produces events; events
 * produced while no stream is open wait in the buffer.
 */
export class ProtocolSession {
  seq = 0;
  /** The assistant the thread's protocol runs use (the first `run.start` binds it, as the JS server does). */
  assistantId: string | undefined;
  currentRunId: string | undefined;
  /** Stops feeding the current run's events into the session (a new run takes its place). */
  detachRun: (() => void) | undefined;
  rootGraph = "root";
  private readonly buffer: ProtocolEvent[] = [];
  private readonly sinks = new Set<Sink>();
  /** Namespaces seen, by key (segments joined by NUL), with their last lifecycle status. */
  private readonly namespaces = new Map<string, { namespace: ProtocolNamespace; status: AgentStatus; graph_name: string }>();

  constructor(private readonly now: () => number) {}

  /** Numbers, buffers and delivers an event; `node` goes into params before `data`, as the JS server writes it. */
  push(method: string, namespace: ProtocolNamespace, data: unknown, node?: string): ProtocolEvent {
    this.seq += 1;
    const event: ProtocolEvent = {
      type: "event",
      event_id: String(this.seq),
      seq: this.seq,
      method,
      params: { namespace, timestamp: this.now(), ...(node !== undefined ? { node } : {}), data },
    };
    this.buffer.push(event);
    if (this.buffer.length > PROTOCOL_BUFFER_SIZE) this.buffer.shift();
    for (const sink of this.sinks) if (matchesFilter(sink.filter, event)) sink.send(event);
    return event;
  }

  /** Replays the buffered events after `since` that pass the filter, then delivers live ones. Returns the detach. */
  attach(filter: EventFilter, since: number | undefined, send: (event: ProtocolEvent) => void): () => void {
    // Synchronous: nothing can be pushed between the replay and joining the live set.
    for (const event of this.buffer) if ((since === undefined || (event.seq ?? 0) > since) && matchesFilter(filter, event)) send(event);
    const sink = { filter, send };
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** Open event streams (tests check that closing one detaches it). */
  get sinkCount(): number {
    return this.sinks.size;
  }

  /** Records a namespace's status; returns whether it changed (a lifecycle event is due). */
  setStatus(namespace: ProtocolNamespace, status: AgentStatus): boolean {
    const key = namespace.join("\0");
    const known = this.namespaces.get(key);
    if (known?.status === status) return false;
    this.namespaces.set(key, { namespace, status, graph_name: known?.graph_name ?? graphName(namespace, this.rootGraph) });
    return true;
  }

  graphName(namespace: ProtocolNamespace): string {
    return this.namespaces.get(namespace.join("\0"))?.graph_name ?? graphName(namespace, this.rootGraph);
  }

  knows(namespace: ProtocolNamespace): boolean {
    return this.namespaces.has(namespace.join("\0"));
  }

  /** The subgraph namespaces seen in the current run that are still open (started or running), deepest first. */
  openSubgraphs(): ProtocolNamespace[] {
    return [...this.namespaces.values()]
      .filter((n) => n.namespace.length > 0 && (n.status === "started" || n.status === "running"))
      .map((n) => n.namespace)
      .sort((a, b) => b.length - a.length);
  }

  /** A new run starts: the tree is rebuilt from its events (the JS server binds a fresh run session). */
  startRun(runId: string, rootGraph: string): void {
    this.currentRunId = runId;
    this.rootGraph = rootGraph;
    this.namespaces.clear();
  }

  /** `agent.getTree`: the root and every namespace seen, children sorted by their JSON, as the JS server builds it. */
  tree(namespace: ProtocolNamespace = []): AgentTreeNode {
    const known = this.namespaces.get(namespace.join("\0"));
    const children = [...this.namespaces.values()]
      .filter((c) => c.namespace.length === namespace.length + 1 && namespace.every((s, i) => c.namespace[i] === s))
      .sort((a, b) => JSON.stringify(a.namespace).localeCompare(JSON.stringify(b.namespace)))
      .map((c) => this.tree(c.namespace));
    return {
      namespace,
      status: known?.status ?? "started",
      graph_name: known?.graph_name ?? graphName(namespace, this.rootGraph),
      ...(children.length ? { children } : {}),
    };
  }
}

/** `researcher:<task id>` → `researcher`: a namespace segment without its dynamic suffix. */
function segmentName(segment: string): string {
  const colon = segment.indexOf(":");
  return colon === -1 ? segment : segment.slice(0, colon);
}

function graphName(namespace: ProtocolNamespace, root: string): string {
  const last = namespace.at(-1);
  return last === undefined ? root : segmentName(last);
}

/** The channel an event belongs to: `input.requested` → input, a named custom event → `custom:<name>`. */
export function channelOf(event: ProtocolEvent): string | undefined {
  switch (event.method) {
    case "values":
    case "updates":
    case "messages":
    case "tools":
    case "lifecycle":
    case "tasks":
      return event.method;
    case "input.requested":
      return "input";
    case "custom": {
      const data = event.params.data;
      return isPlainObject(data) && typeof data.name === "string" ? `custom:${data.name}` : "custom";
    }
    default:
      return undefined;
  }
}

/**
 * Whether `namespace` starts with `prefix`. A prefix segment without `:` also matches a segment with a
 * dynamic suffix (`researcher` matches `researcher:<task id>`), as `is_prefix_match` does on the servers.
 */
export function isPrefixMatch(namespace: ProtocolNamespace, prefix: ProtocolNamespace): boolean {
  if (prefix.length > namespace.length) return false;
  return prefix.every((segment, i) => {
    const candidate = namespace[i] as string;
    return candidate === segment || (!segment.includes(":") && segmentName(candidate) === segment);
  });
}

/** A stream's filter: channel (bare `custom` takes every named custom channel), namespace prefixes, depth below them. */
export function matchesFilter(filter: EventFilter, event: ProtocolEvent): boolean {
  const channel = channelOf(event);
  if (channel === undefined) return false;
  if (!filter.channels.has(channel) && !(channel.startsWith("custom:") && filter.channels.has("custom"))) return false;
  if (!filter.namespaces?.length) return true;
  const ns = event.params.namespace;
  return filter.namespaces.some((prefix) => isPrefixMatch(ns, prefix) && (filter.depth === undefined || ns.length - prefix.length <= filter.depth));
}

const sessionsByContext = new WeakMap<MockContext, ProtocolSessions>();

/** The mock's Protocol v2 sessions (one registry per mock: its routes and tests share it). */
export function protocolSessions(ctx: MockContext): ProtocolSessions {
  let sessions = sessionsByContext.get(ctx);
  if (!sessions) sessionsByContext.set(ctx, (sessions = new ProtocolSessions(ctx)));
  return sessions;
}

/**
 * The sessions of one mock, by thread; emptied on reset (the store they describe is gone). A session
 * is kept only while its thread exists or an event stream is open on it (a stream may be opened
 * before the thread): the others are dropped, with their event buffers, at the next Protocol v2
 * request after the thread went (or never came, e.g. a `run.start` that was refused).
 */
export class ProtocolSessions {
  private readonly byThread = new Map<string, ProtocolSession>();

  constructor(private readonly ctx: MockContext) {
    ctx.onReset("store", () => this.byThread.clear());
    // A deleted thread's session and its event buffer go with it, unless a stream still reads it.
    threadsIn(ctx).subscribe((id, record) => {
      if (id !== undefined && record === undefined && this.byThread.has(id)) this.sweep();
    });
  }

  /** The thread's session, made on first use (the JS server's `ensureThread`). */
  of(threadId: string): ProtocolSession {
    this.sweep();
    let session = this.byThread.get(threadId);
    if (!session) this.byThread.set(threadId, (session = new ProtocolSession(() => this.ctx.clock.now())));
    return session;
  }

  get(threadId: string): ProtocolSession | undefined {
    this.sweep();
    return this.byThread.get(threadId);
  }

  /** Opens an event stream on the thread's session; once detached, the session goes at the next look-up if nothing else keeps it. */
  attach(threadId: string, filter: EventFilter, since: number | undefined, send: (event: ProtocolEvent) => void): () => void {
    return this.of(threadId).attach(filter, since, send);
  }

  /** Sessions held (tests check that they go with their threads). */
  get size(): number {
    this.sweep();
    return this.byThread.size;
  }

  /** Drops the sessions of threads that are gone (or never came) that no stream reads. */
  private sweep(): void {
    const threads = threadsIn(this.ctx);
    for (const [threadId, session] of this.byThread) {
      if (session.sinkCount > 0 || threads.has(threadId)) continue;
      session.detachRun?.();
      this.byThread.delete(threadId);
    }
  }
}
