import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { isPlainObject } from "../core/json.js";
import { isUuid, uuid5, uuidBytes } from "../core/random.js";
import { contains } from "../core/contains.js";
import { agentErrors } from "./errors.js";
import { declareCollection } from "../store/store.js";

/** The namespace the real server derives default assistant ids from (notes §A1). */
export const ASSISTANT_NAMESPACE = uuidBytes("6ba7b821-9dad-11d1-80b4-00c04fd430c8");

/** What a run needs of its assistant: its identity, and the config and context it runs with. */
export interface AssistantRef {
  assistant_id: string;
  graph_id: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  /** First in a run's merged metadata (the default assistants' `created_by: "system"`). */
  metadata: Record<string, unknown>;
}

/** A stored assistant (times in epoch ms; `assistantResponse` writes the wire form). */
export interface AssistantRecord {
  assistant_id: string;
  graph_id: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  created_at: number;
  updated_at: number;
  metadata: Record<string, unknown>;
  version: number;
  name: string;
  description: string | null;
}

/** One version of an assistant, as the real server's assistant_versions row (which has no updated_at). */
export type AssistantVersionRecord = Omit<AssistantRecord, "updated_at">;

/** The id of a graph's default assistant: uuid5(graph), as the real server creates it at start. */
export function defaultAssistantId(graph: string): string {
  return uuid5(graph, ASSISTANT_NAMESPACE);
}

/** The `Assistant` wire form (schema agent-server/assistant.json#/$defs/Assistant). */
export function assistantResponse(a: AssistantRecord) {
  return {
    assistant_id: a.assistant_id,
    graph_id: a.graph_id,
    config: a.config,
    context: a.context,
    created_at: formatTimestamp(a.created_at),
    updated_at: formatTimestamp(a.updated_at),
    metadata: a.metadata,
    version: a.version,
    name: a.name,
    description: a.description,
  };
}


export interface AssistantCreateInput {
  assistant_id?: string;
  graph_id: string;
  config?: Record<string, unknown>;
  context?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  if_exists: "raise" | "do_nothing";
  name?: string;
  description?: string | null;
}

export type AssistantPatchInput = Partial<Pick<AssistantRecord, "graph_id" | "config" | "context" | "metadata" | "name">> & { description?: string };

/**
 * The agent server's assistants (`assistantsIn(ctx)`, versions in `assistantVersionsIn(ctx)`).
 * Each graph the server knows (the scenarios' and the `graphs` fixtures') has a default assistant,
 * made when the graph first becomes known, as the real server makes one per graph at start; a
 * default that was deleted stays deleted (`deletedDefaultsIn(ctx)`) until a reset.
 */
export class Assistants {
  constructor(
    private readonly ctx: MockContext,
    private readonly knownGraphs: () => readonly string[],
  ) {}

  /** The graphs runs and assistants may name. */
  graphs(): string[] {
    return [...new Set(this.knownGraphs())];
  }

  /** Makes the default assistant of every known graph that has none yet. */
  sync(graphs: readonly string[] = this.graphs()): void {
    const assistants = assistantsIn(this.ctx);
    const deletedDefaults = deletedDefaultsIn(this.ctx);
    for (const graph of graphs) {
      const id = defaultAssistantId(graph);
      if (assistants.has(id) || deletedDefaults.has(id)) continue;
      this.insert({ assistant_id: id, graph_id: graph, config: {}, context: {}, metadata: { created_by: "system" }, name: graph, description: null });
    }
  }

  /** Every assistant of a known graph (the real server hides those of graphs it has not loaded). */
  all(): AssistantRecord[] {
    this.sync();
    const graphs = new Set(this.graphs());
    return assistantsIn(this.ctx).filter((a) => graphs.has(a.graph_id));
  }

  get(id: string): AssistantRecord | undefined {
    return this.find(id, this.graphs());
  }

  /** get() with the known graphs already listed. */
  private find(id: string, graphs: readonly string[]): AssistantRecord | undefined {
    this.sync(graphs);
    const found = assistantsIn(this.ctx).get(id.toLowerCase());
    return found && graphs.includes(found.graph_id) ? found : undefined;
  }

  require(id: string): AssistantRecord {
    const found = this.get(id);
    if (!found) throw agentErrors.notFound();
    return found;
  }

  /** `POST /assistants`: a new assistant at version 1; an existing id is 409 unless `if_exists: do_nothing`. */
  create(input: AssistantCreateInput): AssistantRecord {
    this.requireGraph(input.graph_id);
    const { config, context } = alignConfigAndContext(input.config ?? {}, input.context ?? {});
    const id = input.assistant_id ?? this.ctx.random.uuid4();
    const existing = this.get(id);
    if (existing) {
      if (input.if_exists === "do_nothing") return existing;
      throw agentErrors.conflict();
    }
    return this.insert({ assistant_id: id, graph_id: input.graph_id, config, context, metadata: input.metadata ?? {}, name: input.name || "Untitled", description: input.description ?? null });
  }

  /**
   * `PATCH /assistants/{id}`: a new version with the fields given (metadata merged into the current
   * one), which becomes the assistant's current version.
   */
  patch(id: string, input: AssistantPatchInput): AssistantRecord {
    const current = this.require(id);
    if (input.graph_id !== undefined) this.requireGraph(input.graph_id);
    const given = input.config !== undefined || input.context !== undefined ? alignConfigAndContext(input.config ?? {}, input.context ?? {}) : undefined;
    const now = this.ctx.clock.now();
    const versions = assistantVersionsIn(this.ctx).get(current.assistant_id) ?? [];
    const next: AssistantRecord = {
      ...current,
      graph_id: input.graph_id ?? current.graph_id,
      // As the real server: a field is replaced only when given non-empty (COALESCE and `if config:`).
      config: given && Object.keys(given.config).length ? given.config : current.config,
      context: given && Object.keys(given.context).length ? given.context : current.context,
      metadata: input.metadata && Object.keys(input.metadata).length ? { ...current.metadata, ...input.metadata } : current.metadata,
      name: input.name ?? current.name,
      description: input.description ?? current.description,
      version: Math.max(0, ...versions.map((v) => v.version)) + 1,
      updated_at: now,
    };
    assistantsIn(this.ctx).set(next.assistant_id, next);
    assistantVersionsIn(this.ctx).set(next.assistant_id, [...versions, versionOf(next, now)]);
    return next;
  }

  /** `DELETE /assistants/{id}`: the assistant and its versions. */
  delete(id: string): void {
    const current = this.require(id);
    assistantsIn(this.ctx).delete(current.assistant_id);
    assistantVersionsIn(this.ctx).delete(current.assistant_id);
    if (current.assistant_id === defaultAssistantId(current.graph_id)) deletedDefaultsIn(this.ctx).set(current.assistant_id, true);
  }

  /** `POST /assistants/{id}/versions`: newest first, filtered by metadata; none is the real server's 404. */
  versions(id: string, filter: { metadata?: Record<string, unknown>; limit: number; offset: number }): AssistantVersionRecord[] {
    this.sync();
    const all = (assistantVersionsIn(this.ctx).get(id.toLowerCase()) ?? []).filter((v) => !filter.metadata || contains(v.metadata, filter.metadata));
    const page = [...all].sort((a, b) => b.version - a.version).slice(filter.offset, filter.offset + filter.limit);
    if (!page.length) throw agentErrors.assistantVersionsNotFound(id.toLowerCase());
    return page;
  }

  /** `POST /assistants/{id}/latest`: that version's fields become the assistant's (no new version). */
  setLatest(id: string, version: number): AssistantRecord {
    const current = this.require(id);
    const chosen = (assistantVersionsIn(this.ctx).get(current.assistant_id) ?? []).find((v) => v.version === version);
    if (!chosen) throw agentErrors.notFound();
    const next: AssistantRecord = { ...current, config: chosen.config, context: chosen.context, metadata: chosen.metadata, version: chosen.version, name: chosen.name, description: chosen.description };
    assistantsIn(this.ctx).set(next.assistant_id, next);
    return next;
  }

  /**
   * The assistant a run (or a cron, an A2A or MCP call) names: a UUID, or a graph name meaning that
   * graph's default assistant. A UUID of no assistant is the real server's 404; a name that is no
   * graph is its 422 listing the graphs.
   */
  resolve(id: string): AssistantRef {
    const graphs = this.graphs();
    if (!isUuid(id) && !graphs.includes(id)) throw agentErrors.invalidAssistant(id, graphs);
    const found = this.find(isUuid(id) ? id : defaultAssistantId(id), graphs);
    if (!found) throw agentErrors.threadOrAssistantNotFound();
    return { assistant_id: found.assistant_id, graph_id: found.graph_id, config: found.config, context: found.context, metadata: found.metadata };
  }

  private requireGraph(graph: string): void {
    const graphs = this.graphs();
    if (!graphs.includes(graph)) throw agentErrors.graphNotFound(graph, graphs);
  }

  private insert(fields: Omit<AssistantRecord, "created_at" | "updated_at" | "version">): AssistantRecord {
    const now = this.ctx.clock.now();
    const record: AssistantRecord = { ...fields, created_at: now, updated_at: now, version: 1 };
    assistantsIn(this.ctx).set(record.assistant_id, record);
    assistantVersionsIn(this.ctx).set(record.assistant_id, [versionOf(record, now)]);
    return record;
  }
}

function versionOf(a: AssistantRecord, at: number): AssistantVersionRecord {
  const { updated_at: _updated, ...rest } = a;
  return { ...rest, created_at: at };
}

/** The `AssistantVersion` wire form. */
export function versionResponse(v: AssistantVersionRecord) {
  return {
    assistant_id: v.assistant_id,
    graph_id: v.graph_id,
    config: v.config,
    context: v.context,
    created_at: formatTimestamp(v.created_at),
    metadata: v.metadata,
    version: v.version,
    name: v.name,
    description: v.description,
  };
}

/**
 * The real server keeps `config.configurable` and `context` one and the same (vendored `ops.py`):
 * giving both is a 400; giving one sets the other.
 */
function alignConfigAndContext(config: Record<string, unknown>, context: Record<string, unknown>): { config: Record<string, unknown>; context: Record<string, unknown> } {
  const configurable = isPlainObject(config.configurable) ? config.configurable : undefined;
  const hasContext = Object.keys(context).length > 0;
  if (configurable && Object.keys(configurable).length && hasContext) throw agentErrors.configurableAndContext();
  if (configurable && Object.keys(configurable).length) return { config, context: configurable };
  if (hasContext) return { config: { ...config, configurable: context }, context };
  return { config, context };
}

export const assistantsIn = declareCollection<AssistantRecord>("assistants");
/** An assistant's versions, oldest first, by assistant id. */
export const assistantVersionsIn = declareCollection<readonly AssistantVersionRecord[]>("assistant_versions");
/** Default assistants (one per graph) that were deleted, so they are not made again. */
export const deletedDefaultsIn = declareCollection<true>("deleted_default_assistants");
