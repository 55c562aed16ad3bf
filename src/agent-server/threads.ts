import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import type { ThreadStatus } from "../schemas/types.gen.js";
import { declareCollection } from "../store/store.js";

export type { ThreadStatus };

export interface Interrupt {
  value: unknown;
  id: string;
}

/** A thread as the mock keeps it: the wire fields plus the state and scenario bookkeeping behind them. */
export interface ThreadRecord {
  thread_id: string;
  created_at: number;
  updated_at: number;
  state_updated_at: number;
  metadata: Record<string, unknown>;
  /** The config its runs left (runs.ts `threadConfig`); each later run's configurable starts from it. */
  config: Record<string, unknown>;
  status: ThreadStatus;
  values: Record<string, unknown> | null;
  /** `{task_id: [interrupt]}` while interrupted (its checkpoints hold the rest of the state: checkpoints.ts). */
  interrupts: Record<string, Interrupt[]>;
  /** The scenario this thread is playing and the index of its next turn. */
  scenario: { name: string; next_turn: number } | null;
  /** Made for a stateless run (`POST /runs/stream`). */
  temporary: boolean;
}

/** A new idle thread record (not stored). */
export function newThread(ctx: MockContext, threadId: string, metadata: Record<string, unknown>, temporary = false): ThreadRecord {
  const now = ctx.clock.now();
  return {
    thread_id: threadId,
    created_at: now,
    updated_at: now,
    state_updated_at: now,
    metadata,
    config: {},
    status: "idle",
    values: null,
    interrupts: {},
    scenario: null,
    temporary,
  };
}

/** The `Thread` wire form (schema agent-server/thread.json#/$defs/Thread). */
export function threadResponse(t: ThreadRecord) {
  return {
    thread_id: t.thread_id,
    created_at: formatTimestamp(t.created_at),
    updated_at: formatTimestamp(t.updated_at),
    state_updated_at: formatTimestamp(t.state_updated_at),
    metadata: t.metadata,
    status: t.status,
    config: t.config,
    values: t.values,
    interrupts: t.interrupts,
  };
}

export const threadsIn = declareCollection<ThreadRecord>("threads");
