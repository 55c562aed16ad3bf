import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import type { EventBus } from "../core/event-bus.js";
import type { LoadProblem } from "../core/load-error.js";
import type { SourceDocument } from "../core/read-documents.js";
import type { ScenarioSummary } from "../schemas/types.gen.js";
import type { Frame } from "./run-execution.js";
import { adminRunResponse, runsIn, type RunService } from "./runs.js";
import type { OverrideHandle, ScenarioRegistry } from "./scenario-registry.js";
import type { LoadedScenario, ScenarioInput } from "./scenario-types.js";

/** Filter of `mock.runs()` and `GET /_mock/runs`; every given field must match. */
export interface RunFilter {
  thread_id?: string;
  scenario?: string;
  status?: string;
}

/** What `GET /_mock/runs` shows of a run (DESIGN §4). */
export type AdminRun = ReturnType<typeof adminRunResponse>;

/** A run's events with size, instant and offset from its creation (the inspector's timeline). */
export interface RunEvents {
  run_id: string;
  items: ReturnType<typeof timelineEntry>[];
  count: number;
  finished: boolean;
}

/** What MockControl, the change feed and the inspector may use of the agent server; app.ts wires it. */
export interface AgentServerControl {
  /** The loaded scenarios in match order. */
  scenarios(): ScenarioSummary[];
  /** Loads scenario files, folders or objects; throws LoadError on a bad one. */
  loadScenarios(input: readonly (string | ScenarioInput)[]): Promise<string[]>;
  /** Loads parsed scenario documents (an upload), all or none; throws LoadError naming every problem. */
  addScenarios(docs: readonly SourceDocument[], problems: LoadProblem[]): string[];
  /** Scenarios that win over every other until the handle is called or the scenarios are reset. */
  useScenarios(input: readonly (string | ScenarioInput)[]): OverrideHandle;
  useScenarioDocuments(docs: readonly SourceDocument[], problems: LoadProblem[]): OverrideHandle;
  /** False when no scenario has the name. */
  removeScenario(name: string): boolean;
  runs(filter: RunFilter): AdminRun[];
  run(runId: string): AdminRun | undefined;
  /** Calls `listener` after each change to the runs; returns the unsubscribe. */
  onRuns(listener: () => void): () => void;
  /** Undefined for an unknown run. */
  runEvents(runId: string): RunEvents | undefined;
  /** Reports runs, their events and the scenarios' changes on the change feed. */
  feedChanges(bus: EventBus): void;
}

const TERMINAL = new Set(["success", "error", "timeout", "interrupted"]);

export function agentServerControl(ctx: MockContext, registry: ScenarioRegistry, runService: RunService): AgentServerControl {
  const runs = runsIn(ctx);
  return {
    scenarios: () => registry.list().map((s) => describeScenario(s, registry.isUsed(s), registry.isOverride(s))),
    loadScenarios: async (input) => registry.load(input),
    addScenarios: (docs, problems) => registry.add(docs, problems),
    useScenarios: (input) => registry.use(input),
    useScenarioDocuments: (docs, problems) => registry.useDocuments(docs, problems),
    removeScenario: (name) => registry.remove(name),
    runs(filter) {
      const threadId = filter.thread_id?.toLowerCase();
      return runs
        .filter((r) => (!threadId || r.thread_id === threadId) && (!filter.scenario || r.scenario === filter.scenario) && (!filter.status || r.status === filter.status))
        .map(adminRunResponse);
    },
    run(runId) {
      const run = runs.get(runId.toLowerCase());
      return run && adminRunResponse(run);
    },
    onRuns: (listener) => runs.subscribe(() => listener()),
    runEvents(runId) {
      const run = runs.get(runId.toLowerCase());
      if (!run) return undefined;
      const execution = runService.execution(run.run_id);
      // A rolled-back run, or one whose thread was deleted, has no events left to show.
      const items = (execution?.frames ?? []).map((f) => timelineEntry(f, run.created_at));
      return { run_id: run.run_id, items, count: items.length, finished: execution ? execution.outcome !== undefined : true };
    },
    feedChanges(bus) {
      runs.subscribe((id, run, previous) => {
        if (id === undefined) return; // restore(): the "reset" event says it
        if (!run) return bus.emit("run.removed", () => ({ run_id: id }));
        if (!previous) {
          bus.emit("run.created", () => adminRunResponse(run));
          // The execution is registered right after the record; each of its events is told as it comes.
          queueMicrotask(() =>
            runService.execution(run.run_id)?.subscribe({
              frame: (frame) => bus.emit("run.event", () => ({ run_id: run.run_id, ...timelineEntry(frame, run.created_at) })),
              heartbeat: () => {},
              end: () => {},
            }),
          );
        } else if (run.status !== previous.status) {
          bus.emit(TERMINAL.has(run.status) ? "run.ended" : "run.updated", () => adminRunResponse(run));
        }
      });
      registry.subscribe((action, names) => bus.emit(`scenarios.${action}`, () => ({ names: [...names] })));
    },
  };
}

/** One event of a run as the inspector's timeline shows it. */
function timelineEntry(frame: Frame, runCreatedAt: number) {
  let data: unknown;
  try {
    data = JSON.parse(frame.data);
  } catch {
    data = frame.data;
  }
  return {
    id: frame.id,
    event: frame.event,
    mode: frame.mode,
    size: Buffer.byteLength(frame.data),
    at: formatTimestamp(frame.at),
    offset_ms: frame.at - runCreatedAt,
    data,
  };
}

function describeScenario(s: LoadedScenario, used: boolean, override: boolean): ScenarioSummary {
  return {
    name: s.name,
    description: s.description ?? null,
    graph_id: s.graph_id ?? null,
    priority: s.priority,
    once: s.once,
    used,
    override,
    match: s.match,
    turns: s.turns,
    source: `${s.source.file}#${s.source.pointer}`,
  };
}
