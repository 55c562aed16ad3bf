import { MAX_INSTANT } from "../core/clock.js";
import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { deepMerge, isPlainObject, setOwn } from "../core/json.js";
import { isUuid } from "../core/random.js";
import { UNTRACED, type Tracing } from "../ports.js";
import type { Assistants, AssistantRef } from "./assistants.js";
import { agentErrors } from "./errors.js";
import { patternMismatch } from "./patterns.js";
import { checkpointRunMetadata, exceptionRepr, findCheckpoint, latestCheckpoint, saveRunCheckpoints } from "./checkpoints.js";
import { applyWrites, emptyState, normalizeWrite, ReducerError, type Channels } from "./reducers.js";
import { eventMode, Execution, type Outcome } from "./run-execution.js";
import type { ScenarioRegistry } from "./scenario-registry.js";
import type { Ending, LoadedScenario, ScenarioEvent, Turn } from "./scenario-types.js";
import type { StreamFault } from "../http/faults.js";
import { renderTemplates, TemplateError, type TemplateScope } from "./templates.js";
import { newThread, threadsIn, type ThreadRecord } from "./threads.js";
import type { MultitaskStrategy, RunStatus, ScenarioStep, ScenarioStoreWrite } from "../schemas/types.gen.js";
import { ItemStore } from "./store-items.js";
import { requestedCheckpoint, runKwargs, runMetadata, threadConfig, type RunCreateBody } from "./run-config.js";
import { declareCollection } from "../store/store.js";

export type { MultitaskStrategy, RunStatus };

export type { RunCreateBody };

/** A run as the mock keeps it: the wire fields plus what /_mock/runs shows. */
export interface RunRecord {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  graph_id: string;
  created_at: number;
  updated_at: number;
  status: RunStatus;
  metadata: Record<string, unknown>;
  kwargs: Record<string, unknown>;
  multitask_strategy: MultitaskStrategy;
  /** The body as the client sent it. */
  request: unknown;
  /** The route that created it, e.g. `POST /threads/{id}/runs/stream`. */
  route: string;
  deployment_id: string | null;
  scenario: string;
  /** 1-based turn of the scenario played. */
  turn: number;
  stateless: boolean;
  on_disconnect: "cancel" | "continue";
  feedback_urls: Record<string, string>;
  error: { error: string; message: string } | null;
}

/** How a run was asked for: what a run-create needs of its request besides the validated body. */
export interface RunScope {
  /** The thread of the path (lowercase); null for stateless routes (`/runs/…`). */
  threadId: string | null;
  kind: "stream" | "background" | "wait";
  /** The deployment whose `custom_url` the request came in on. */
  deploymentId: string | null;
  /** `POST /threads/<id>/runs/stream`: method and path as sent, without a deployment's prefix. */
  route: string;
  /** Method and URL as sent, for the answer when no scenario matches. */
  readonly request: string;
  /** Where the run's feedback token URLs point (`{tracing_url}`); read while the request is answered. */
  readonly tracingUrl: string;
  /** The body as the client sent it, before validation filled defaults (kept for /_mock/runs). */
  sentBody: unknown;
  /** The request's headers (names lowercase): `user-agent` and `x-*` go into the run's configurable. */
  headers: Record<string, unknown>;
  /** Adds facts to the request's journal entry (the inspector shows them beside the request). */
  note(facts: Record<string, unknown>): void;
}

/** The assistant and thread a run plays on. */
interface RunTarget {
  assistant: AssistantRef;
  thread: ThreadRecord;
  /** Made by this request (`if_not_exists: "create"`, or a stateless run's temporary thread). */
  isNewThread: boolean;
}

/** The scenario turn a run plays, with its templates rendered for this run. */
interface RunScript {
  scenario: LoadedScenario;
  turnIndex: number;
  events: ScenarioEvent[];
  /** The turn's graph steps (short form), instead of events. */
  steps: ScenarioStep[] | undefined;
  ending: Exclude<Ending, { http: unknown }>;
  /** The turn's `faults`, for the stream of its run. */
  fault: StreamFault | undefined;
  /** The turn's writes to the long-term store, made when the run succeeds. */
  store: ScenarioStoreWrite[];
}

/** The `Run` wire form (schema agent-server/run.json#/$defs/Run). */
export function runResponse(r: RunRecord) {
  return {
    run_id: r.run_id,
    thread_id: r.thread_id,
    assistant_id: r.assistant_id,
    created_at: formatTimestamp(r.created_at),
    updated_at: formatTimestamp(r.updated_at),
    status: r.status,
    metadata: r.metadata,
    kwargs: r.kwargs,
    multitask_strategy: r.multitask_strategy,
  };
}

/** What `GET /_mock/runs` shows of a run (DESIGN §4). */
export function adminRunResponse(r: RunRecord) {
  return {
    ...runResponse(r),
    graph_id: r.graph_id,
    deployment_id: r.deployment_id,
    route: r.route,
    scenario: r.scenario,
    turn: r.turn,
    stateless: r.stateless,
    request: r.request,
    feedback_urls: r.feedback_urls,
    error: r.error,
  };
}

/**
 * What `…/runs/wait` and `…/join` return, as the Python server's `_run_result_body`: the run's last
 * `values` chunk — the final state, or at an interrupt the chunk LangGraph streams for it,
 * `{"__interrupt__": […]}` alone (the state is the thread's) — or `{"__error__": …}` for a failed run.
 */
export function finalValues(outcome: Outcome): Record<string, unknown> {
  if (outcome.kind === "error") return { __error__: outcome.error };
  if (outcome.kind === "success" && outcome.interrupt) return { __interrupt__: [{ value: outcome.interrupt.value, id: outcome.interrupt.id }] };
  return outcome.values ?? {};
}

/** Where a run's state starts: the state before it, with its input applied, and its first step's number. */
interface RunStart {
  prior: Record<string, unknown> | null;
  values: Record<string, unknown> | null;
  error: ReducerError | undefined;
  channels: Channels;
  hasInput: boolean;
  firstStep: number;
  /** The checkpoint the run starts from. */
  parentId: string | null;
}

/**
 * Creates runs from requests (assistant, thread, scenario, multitask strategy) and keeps their
 * executions; applies each run's outcome to the run and its thread.
 */
export class RunService {
  private readonly executions = new Map<string, Execution>();
  /** Executions not finished yet, by thread (multitask strategies and thread status read it). */
  private readonly unfinished = new Map<string, Set<Execution>>();
  /** Bumped on reset: executions of an earlier generation no longer write to the store. */
  private generation = 0;
  /** The long-term store (`/store/*`) scenario turns write to. */
  private readonly items: ItemStore;

  constructor(
    private readonly ctx: MockContext,
    private readonly scenarios: ScenarioRegistry,
    /** The assistants runs name (a graph's default one, or one made with `POST /assistants`). */
    readonly assistants: Assistants,
    /** The tracing service's port: feedback URLs, and each finished run's trace. */
    private readonly tracing: Tracing = UNTRACED,
    /** The graphs' channel reducers (the `graphs` fixtures); MessagesState's for every graph without. */
    private readonly graphs: { channels(graphId: string): Channels },
  ) {
    this.items = new ItemStore(ctx);
    ctx.onReset("store", () => {
      this.generation++;
      for (const x of this.executions.values()) x.cancel("interrupt");
      this.executions.clear();
      this.unfinished.clear();
    });
    // A run waiting on a real-clock delay holds a timer: cancel it, or it outlives the server.
    ctx.onClose(() => {
      for (const set of this.unfinished.values()) for (const x of set) x.cancel("interrupt");
    });
  }

  /** The channel reducers of a graph (its `graphs` fixture's, else MessagesState's). */
  channels(graphId: string): Channels {
    return this.graphs.channels(graphId);
  }

  execution(runId: string): Execution | undefined {
    return this.executions.get(runId);
  }

  /** Every run still pending or running. */
  playing(): Execution[] {
    return [...this.unfinished.values()].flatMap((set) => [...set]);
  }

  /** Runs of a thread still pending or running. */
  active(threadId: string): Execution[] {
    return [...(this.unfinished.get(threadId) ?? [])];
  }

  /**
   * Creates a run from a validated run-create body and starts playing it; throws the real server's
   * errors. The steps run in this order because each may refuse the run (in the order the real server
   * checks), and the run is stored only after the last refusal (a turn scripted to refuse still moves
   * its thread on to the next turn, as the scenario says).
   */
  create(body: RunCreateBody, scope: RunScope): { run: RunRecord; execution: Execution } {
    this.checkStartTime(body);
    // The assistant (a graph name or UUID) before the thread: the real server refuses an unknown one first.
    const assistant = this.assistants.resolve(body.assistant_id);
    const target = this.resolveThread(assistant, body, scope);
    const { scenario, turnIndex } = this.matchScenario(target, body, scope);
    const ahead = this.applyMultitaskStrategy(target.thread, body.multitask_strategy);
    const now = this.ctx.clock.now();
    const runId = this.ctx.random.uuid7(now);
    const start = this.startState(target, body);
    const script = this.renderScript(runId, now, scenario, turnIndex, target, body, start);
    const run = this.createRecord(runId, now, script, target, body, scope);
    const execution = this.startExecution(run, script, target, ahead, body, scope, start);
    return { run, execution };
  }

  /** Refuses a delayed start the clock can never reach: the run would wait (or spin) forever. */
  private checkStartTime(body: RunCreateBody): void {
    if (body.after_seconds !== undefined && this.ctx.clock.now() + body.after_seconds * 1000 > MAX_INSTANT) {
      throw agentErrors.invalidBody(`after_seconds ${body.after_seconds} starts the run after ${new Date(MAX_INSTANT).toISOString()}, the last instant the clock can hold`);
    }
  }

  /**
   * The thread the run plays on: the path's (created if `if_not_exists: "create"`), or a temporary one
   * for a stateless run. A new thread is only built here, not stored: later steps may still refuse.
   */
  private resolveThread(assistant: AssistantRef, body: RunCreateBody, scope: RunScope): RunTarget {
    if (scope.threadId === null) {
      if (body.command?.resume !== undefined) throw agentErrors.resumeWithoutThread();
      // Temporary (deleted after the run, never listed) unless the run keeps it: then it is an
      // ordinary thread from the start, as on the real server (`on_completion: "keep"`, crons' "keep").
      return { assistant, thread: newThread(this.ctx, this.ctx.random.uuid4(), {}, body.on_completion === "delete"), isNewThread: true };
    }
    const found = threadsIn(this.ctx).get(scope.threadId);
    if (!found && body.if_not_exists !== "create") throw agentErrors.threadOrAssistantNotFound();
    return { assistant, thread: found ?? newThread(this.ctx, scope.threadId, {}), isNewThread: !found };
  }

  /**
   * The scenario and turn this run plays. A turn scripted to refuse (`end: {http}`) throws its answer
   * here, after moving the thread on to the next turn.
   */
  private matchScenario(target: RunTarget, body: RunCreateBody, scope: RunScope): { scenario: LoadedScenario; turnIndex: number } {
    const picked = this.pickScenario(scope, target.thread, body, target.assistant, scope.threadId === null);
    scope.note({ scenario: picked.scenario.name, turn: picked.turnIndex + 1 });
    const ending: Ending = picked.scenario.turns[picked.turnIndex]?.end ?? "success";
    if (typeof ending === "object" && "http" in ending) {
      const { thread } = target;
      if (!target.isNewThread) threadsIn(this.ctx).set(thread.thread_id, { ...thread, scenario: { name: picked.scenario.name, next_turn: picked.turnIndex + 1 } });
      throw agentErrors.scripted(ending.http.status, ending.http.detail);
    }
    return picked;
  }

  /**
   * The thread's unfinished runs this one waits for: refused (`reject`), cancelled (`interrupt`,
   * `rollback`) or queued behind (`enqueue`). After the scenario match, so that a run refused for
   * having no scenario cancels nothing.
   */
  private applyMultitaskStrategy(thread: ThreadRecord, strategy: MultitaskStrategy): Execution[] {
    const ahead = this.active(thread.thread_id);
    if (ahead.length && strategy === "reject") throw agentErrors.threadBusy();
    if (strategy === "interrupt" || strategy === "rollback") {
      for (const x of ahead) x.cancel(strategy);
    }
    return ahead;
  }

  /**
   * The state the run starts from, as LangGraph's `__start__` step leaves it: the thread's state (or the
   * checkpoint it forks from) with the run's input, and a Command's `update`, reduced into it by the
   * graph's channels; message ids are drawn from the seeded randomness. An input the reducers refuse
   * is kept, and fails the run when it plays.
   */
  private startState(target: RunTarget, body: RunCreateBody): RunStart {
    const { thread, assistant } = target;
    const channels = this.graphs.channels(assistant.graph_id);
    const forked = forkedFrom(this.ctx, thread, body);
    const parent = forked ?? latestCheckpoint(this.ctx, thread.thread_id);
    const prior = forked?.values ?? thread.values ?? emptyState(channels);
    const hasInput = body.command === undefined || body.command === null;
    const parentStep = parent?.metadata.step;
    const first = typeof parentStep === "number" ? parentStep + 1 : hasInput ? -1 : 0;
    const newId = () => this.ctx.random.uuid4();
    let values = prior;
    let error: ReducerError | undefined;
    try {
      if (hasInput && isPlainObject(body.input)) values = applyWrites(prior, [body.input], channels, newId);
      const update = body.command?.update;
      if (isPlainObject(update)) values = applyWrites(values, [update], channels, newId);
      else if (Array.isArray(update)) values = applyWrites(values, update.map(pairWrite), channels, newId);
    } catch (err) {
      if (!(err instanceof ReducerError)) throw err;
      error = err;
    }
    // With input, the input checkpoint and the `__start__` step come before the first node's.
    return { prior, values, error, channels, hasInput, firstStep: first + (hasInput ? 2 : 0), parentId: parent?.checkpoint_id ?? null };
  }

  /**
   * The turn's events, steps and ending with their templates filled for this run (faker seeded by the
   * run id). Before the record is stored, because a template that fails refuses the run.
   */
  private renderScript(runId: string, now: number, scenario: LoadedScenario, turnIndex: number, target: RunTarget, body: RunCreateBody, start: RunStart): RunScript {
    const turn = scenario.turns[turnIndex] ?? {};
    this.ctx.random.seedFakerFor(`run/${runId}`);
    const values: TemplateScope = {
      run_id: runId,
      // A stateless run plays on a temporary thread, as on the real server: templates see its id.
      thread_id: target.thread.thread_id,
      assistant_id: target.assistant.assistant_id,
      graph_id: target.assistant.graph_id,
      scenario: scenario.name,
      turn: turnIndex + 1,
      now,
      request: body as Record<string, unknown>,
      state: start.values,
      random: this.ctx.random,
    };
    let events: ScenarioEvent[];
    let steps: ScenarioStep[] | undefined;
    let ending: Ending;
    let store: ScenarioStoreWrite[];
    try {
      events = renderTemplates(turn.events ?? NONE, values) as ScenarioEvent[];
      steps = turn.steps ? this.renderSteps(turn.steps, values, start) : undefined;
      ending = renderTemplates(turn.end ?? "success", values) as Ending;
      store = renderTemplates(turn.store ?? NONE, values) as ScenarioStoreWrite[];
    } catch (err) {
      if (err instanceof TemplateError) throw agentErrors.templateFailed(scenario.name, err.message);
      throw err;
    }
    // A line break in an event name would end the SSE field and let the rest pass for other fields.
    // Only a rendered name can (the scenario schema refuses line breaks in a name as written).
    const broken = events === turn.events ? -1 : events.findIndex((e) => LINE_BREAK.test(e.event));
    if (broken >= 0) throw agentErrors.templateFailed(scenario.name, `event name at /${broken}/event is ${JSON.stringify(events[broken]!.event)} in this run; an SSE event name is one line`);
    return { scenario, turnIndex, events, steps, ending: ending as RunScript["ending"], fault: turnFault(scenario.name, turn.faults), store };
  }

  /**
   * The turn's steps with their templates filled, each seeing the state its node reads: the run's
   * start state with every earlier step's update reduced into it. Each update's messages get their
   * ids here (seeded), so what a template reads is what the run's state will hold. A step the
   * reducers refuse is the last one kept: the run fails there and renders nothing it never plays
   * (nor any step when its input is refused).
   */
  private renderSteps(steps: readonly ScenarioStep[], scope: TemplateScope, start: RunStart): ScenarioStep[] {
    const rendered: ScenarioStep[] = [];
    if (start.error) return rendered;
    const newId = () => this.ctx.random.uuid4();
    let state = start.values;
    for (let i = 0; i < steps.length; i++) {
      const step = renderTemplates(steps[i], { ...scope, state }, [i]) as ScenarioStep;
      try {
        const update = normalizeWrite(step.update, start.channels, newId) as ScenarioStep["update"];
        state = applyWrites(state, [update], start.channels, newId);
        rendered.push({ ...step, update });
      } catch (err) {
        if (!(err instanceof ReducerError)) throw err;
        rendered.push(step);
        break;
      }
    }
    return rendered;
  }

  /**
   * Builds and stores the pending run and marks its thread busy on the run's graph and scenario turn:
   * the first write, once no step can refuse any more.
   */
  private createRecord(runId: string, now: number, script: RunScript, target: RunTarget, body: RunCreateBody, scope: RunScope): RunRecord {
    const { assistant, thread } = target;
    const threadMetadata = deepMerge(thread.metadata, { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id });
    const metadata = runMetadata(assistant.metadata, threadMetadata, body);
    const run: RunRecord = {
      run_id: runId,
      thread_id: thread.thread_id,
      assistant_id: assistant.assistant_id,
      graph_id: assistant.graph_id,
      created_at: now,
      updated_at: now,
      status: "pending",
      metadata,
      kwargs: runKwargs(body, scope.threadId === null, scope.headers, { run_id: runId, thread_id: thread.thread_id, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id }, assistant, metadata, thread.config),
      multitask_strategy: body.multitask_strategy,
      request: scope.sentBody,
      route: scope.route,
      deployment_id: scope.deploymentId,
      scenario: script.scenario.name,
      turn: script.turnIndex + 1,
      stateless: scope.threadId === null,
      on_disconnect: body.on_disconnect,
      feedback_urls: {},
      error: null,
    };
    scope.note({ run_id: runId });
    runsIn(this.ctx).set(runId, run);
    threadsIn(this.ctx).set(thread.thread_id, {
      ...thread,
      status: "busy",
      updated_at: now,
      metadata: threadMetadata,
      config: threadConfig(assistant.config, thread.config, run.kwargs.config as Record<string, unknown>),
      scenario: { name: script.scenario.name, next_turn: script.turnIndex + 1 },
    });
    return run;
  }

  /**
   * Starts playing the script (after the runs ahead of it); its outcome is applied to the run and
   * thread. Last, so that the execution only ever sees a stored run.
   */
  private startExecution(run: RunRecord, script: RunScript, target: RunTarget, ahead: Execution[], body: RunCreateBody, scope: RunScope, start: RunStart): Execution {
    const ctx = this.ctx;
    const { thread } = target;
    const runId = run.run_id;
    // Every run publishes its own modes (`["values"]` by default); a join cannot ask for more.
    const modes = modesOf(body.stream_mode);
    // The modes the turn scripts (root events) are sent as scripted; the others are derived from its steps.
    const scripted = new Set(script.events.filter((e) => !e.event.includes("|")).map((e) => eventMode(e.event)));
    const generation = this.generation;
    const feedbackKeys: readonly string[] = body.feedback_keys?.length ? [...new Set(body.feedback_keys)] : NONE;
    // Read now, from the request the run came in on, and only when the run will issue tokens.
    const tracingUrl = feedbackKeys.length ? scope.tracingUrl : "";
    const execution: Execution = new Execution(
      {
        run_id: runId,
        thread_id: thread.thread_id,
        events: script.events,
        ending: script.ending,
        modes,
        subgraphs: body.stream_subgraphs,
        resumable: body.stream_resumable,
        fault: script.fault,
        store: script.store,
        afterMs: (body.after_seconds ?? 0) * 1000,
        waitFor: ahead.length ? ahead.map((x) => x.done) : NONE,
        priorValues: start.prior,
        steps: script.steps,
        channels: start.channels,
        newId: () => ctx.random.uuid4(),
        startValues: start.values,
        startError: start.error,
        scriptsValues: scripted.has("values"),
        streamsStart: start.hasInput ? isPlainObject(body.input) : true,
        derived: new Set([...modes].filter((m) => !scripted.has(m))),
        firstStep: start.firstStep,
        runMetadata: checkpointRunMetadata(run),
        interruptId: ctx.random.hex(32),
        input: run.kwargs.command === null ? run.kwargs.input : undefined,
        parentCheckpointId: start.parentId,
        checkpointContext: { threadId: thread.thread_id, configurable: configurableOf(run.kwargs), metadata: checkpointRunMetadata(run) },
        newCheckpointId: (at) => ctx.random.uuid7(at),
      },
      ctx.clock,
      ctx.heartbeatMs,
      {
        restart: ahead.length
          ? () => {
              const now = threadsIn(ctx).get(thread.thread_id) ?? thread;
              const fresh = this.startState({ ...target, thread: now }, body);
              return { priorValues: fresh.prior, startValues: fresh.values, startError: fresh.error, firstStep: fresh.firstStep, parentCheckpointId: fresh.parentId };
            }
          : undefined,
        running: () => {
          if (generation === this.generation) this.updateRun(runId, { status: "running" });
        },
        // One presigned feedback URL per requested key, issued when the run reaches its `feedback` event.
        feedback: () => (generation === this.generation ? this.tracing.feedbackUrls(run, feedbackKeys, tracingUrl) : {}),
        finish: (outcome) => {
          if (generation === this.generation) this.finish(execution, outcome, body.on_completion);
        },
      },
    );
    this.executions.set(runId, execution);
    const onThread = this.unfinished.get(thread.thread_id) ?? new Set<Execution>();
    this.unfinished.set(thread.thread_id, onThread.add(execution));
    // Start on the next turn of the event loop, once the route has subscribed to the stream.
    setImmediate(() => void execution.play());
    return execution;
  }

  /** For a thread being deleted: cancels its runs still playing and forgets the events of all of them. */
  deleteThread(threadId: string): void {
    for (const x of this.active(threadId)) x.cancel("interrupt");
    for (const [runId, x] of this.executions) if (x.script.thread_id === threadId) this.executions.delete(runId);
  }

  /** Cancels a pending or running run; a run that is over is left as it is. */
  cancel(runId: string, action: "interrupt" | "rollback"): void {
    this.executions.get(runId)?.cancel(action);
  }

  private pickScenario(scope: RunScope, thread: ThreadRecord, body: RunCreateBody, assistant: AssistantRef, stateless: boolean): { scenario: LoadedScenario; turnIndex: number } {
    const current = thread.scenario ? this.scenarios.get(thread.scenario.name) : undefined;
    const next = thread.scenario?.next_turn ?? 0;
    // A thread keeps playing its scenario while turns remain, and a resume always continues it.
    if (current && (next < current.turns.length || (body.command !== undefined && body.command !== null))) {
      return { scenario: current, turnIndex: Math.min(next, current.turns.length - 1) };
    }
    const reasons: string[] = [];
    for (const scenario of this.scenarios.candidates()) {
      const reason = mismatch(scenario, body, assistant, stateless ? null : thread.thread_id);
      if (reason) {
        reasons.push(`${scenario.name}: ${reason}`);
        continue;
      }
      if (scenario.once) this.scenarios.consume(scenario);
      return { scenario, turnIndex: scenario === current ? Math.min(next, scenario.turns.length - 1) : 0 };
    }
    // The inspector shows these beside the request that missed.
    scope.note({ near_miss: reasons });
    throw agentErrors.noScenario(`${scope.request}, assistant '${body.assistant_id}'`, reasons);
  }

  private updateRun(runId: string, changes: Partial<RunRecord>): RunRecord | undefined {
    const runs = runsIn(this.ctx);
    const run = runs.get(runId);
    if (!run) return undefined;
    return runs.set(runId, { ...run, ...changes, updated_at: this.ctx.clock.now() });
  }

  /** Hands the finished run to the tracing service: its input, final state, error and steps. */
  private traceRun(run: RunRecord, execution: Execution, outcome: Outcome, error: { error: string; message: string } | null): void {
    this.tracing.recordRun({
      run_id: run.run_id,
      thread_id: run.thread_id,
      assistant_id: run.assistant_id,
      graph_id: run.graph_id,
      scenario: run.scenario,
      deployment_id: run.deployment_id,
      input: run.kwargs.input ?? null,
      // LangChain's tracer sets no outputs on a chain that raised (an error or a cancellation).
      outputs: error || outcome.kind === "cancelled" ? null : outcome.values,
      error: error ? `${error.error}: ${error.message}` : outcome.kind === "cancelled" ? "Cancelled" : null,
      start_time: run.created_at,
      end_time: this.ctx.clock.now(),
      steps: execution.steps,
      metadata: run.metadata,
    });
  }

  /** Applies an outcome: terminal run status, then the thread's status and state. */
  private finish(execution: Execution, outcome: Outcome, onCompletion: "delete" | "keep"): void {
    const ctx = this.ctx;
    const runId = execution.script.run_id;
    const onThread = this.unfinished.get(execution.script.thread_id);
    onThread?.delete(execution);
    if (onThread?.size === 0) this.unfinished.delete(execution.script.thread_id);
    const run = runsIn(ctx).get(runId);
    const rollback = outcome.kind === "cancelled" && outcome.action === "rollback";
    // A rolled-back run can no longer be joined: forget its events too.
    if (rollback) this.executions.delete(runId);
    if (!run) return;
    const status: RunStatus = outcome.kind === "success" ? "success" : outcome.kind === "cancelled" ? "interrupted" : "error";
    const error = outcome.kind === "error" ? outcome.error : outcome.kind === "disconnect" ? { error: "ConnectionError", message: "The scenario dropped the connection (end: disconnect)" } : null;
    if (rollback) runsIn(ctx).delete(runId);
    else this.updateRun(runId, { status, error, feedback_urls: outcome.kind === "success" ? outcome.feedback : {} });
    // A rolled-back run is undone, so it leaves no trace either.
    if (!rollback) this.traceRun(run, execution, outcome, error);
    // What the graph wrote to the long-term store, as a node would during the run: only a run that
    // got to its end (an interrupt is an end) made its writes.
    if (outcome.kind === "success") applyStoreWrites(this.items, execution.script.store ?? []);
    const threads = threadsIn(ctx);
    const thread = threads.get(run.thread_id);
    if (!thread) return;
    if (thread.temporary && onCompletion === "delete") {
      threads.delete(thread.thread_id);
      this.executions.delete(runId);
      return;
    }
    const now = ctx.clock.now();
    const stillBusy = this.active(thread.thread_id).some((x) => x !== execution);
    if (rollback) {
      // The run is undone: the thread's state is what it was before it, and no checkpoint is saved.
      const settled = Object.keys(thread.interrupts).length ? "interrupted" : "idle";
      threads.set(thread.thread_id, { ...thread, status: stillBusy ? "busy" : settled, updated_at: now, values: execution.script.priorValues });
      return;
    }
    const interrupt = outcome.kind === "success" ? outcome.interrupt : undefined;
    // Keyed by the interrupted task, the task of the run's last checkpoint.
    const interrupts = interrupt ? { [interrupt.task]: [{ value: interrupt.value, id: interrupt.id }] } : {};
    // The node a scripted error ending says raised: the last checkpoint's next task, holding the error.
    const failed = outcome.kind === "error" ? outcome.node : undefined;
    // A successful run always saves a checkpoint, and so does a node that raised (its error is saved
    // with the checkpoint's task); a failed or cancelled run otherwise only when it changed the
    // state: it streamed values, or it ends the thread's pending interrupt.
    const streamedValues = outcome.values !== execution.script.priorValues;
    const changed = outcome.kind === "success" || failed !== undefined || streamedValues || execution.steps.length > 0 || Object.keys(thread.interrupts).length > 0;
    if (changed) {
      saveRunCheckpoints(ctx, {
        run,
        input: run.kwargs.command === null ? run.kwargs.input : undefined,
        priorValues: execution.script.priorValues,
        started: execution.script.startValues,
        steps: execution.steps,
        final: {
          values: outcome.values,
          next: interrupt ? [interrupt.node] : failed !== undefined ? [failed] : [],
          interrupts,
          errors: failed !== undefined && outcome.kind === "error" ? { [failed]: exceptionRepr(outcome.error) } : undefined,
        },
        parent: forkedFrom(ctx, thread, run.kwargs),
        ids: execution.checkpointIds,
      });
    }
    const settled: ThreadRecord["status"] = outcome.kind === "error" || outcome.kind === "disconnect" ? "error" : interrupt ? "interrupted" : "idle";
    threads.set(thread.thread_id, {
      ...thread,
      status: stillBusy ? "busy" : settled,
      updated_at: now,
      state_updated_at: changed ? now : thread.state_updated_at,
      values: outcome.values,
      interrupts,
    });
  }
}

function mismatch(scenario: LoadedScenario, body: RunCreateBody, assistant: AssistantRef, threadId: string | null): string | undefined {
  const m = scenario.match;
  if (m.assistant_id !== undefined && isUuid(m.assistant_id) && m.assistant_id.toLowerCase() !== assistant.assistant_id) {
    return `assistant_id is ${assistant.assistant_id} (graph "${assistant.graph_id}"), not ${m.assistant_id}`;
  }
  if (scenario.graph_id !== undefined && scenario.graph_id !== assistant.graph_id) {
    return `the run is on graph "${assistant.graph_id}", the scenario on "${scenario.graph_id}"`;
  }
  if (m.thread_id !== undefined) {
    if (threadId === null) return `the run is stateless (no thread), the scenario wants thread_id ${m.thread_id}`;
    if (m.thread_id.toLowerCase() !== threadId) return `thread_id is ${threadId}, not ${m.thread_id}`;
  }
  if (m.input !== undefined) {
    const reason = patternMismatch(m.input, body.input, "input");
    if (reason) return reason;
  }
  if (m.metadata !== undefined) return patternMismatch(m.metadata, body.metadata ?? {}, "metadata");
  return undefined;
}

/** One `(channel, value)` pair of a Command's update given as a list, as the write it is (anything else writes nothing). */
function pairWrite(pair: unknown): Record<string, unknown> {
  const write: Record<string, unknown> = {};
  if (Array.isArray(pair) && typeof pair[0] === "string") setOwn(write, pair[0], pair[1]);
  return write;
}

/** A turn's store writes, in order. */
function applyStoreWrites(items: ItemStore, writes: readonly ScenarioStoreWrite[]): void {
  for (const write of writes) {
    if ("put" in write) items.put(write.put.namespace, write.put.key, write.put.value, write.put.ttl ?? null, null);
    else items.delete(write.delete.namespace, write.delete.key);
  }
}

/** The checkpoint a run asked to start from, when the thread has it. */
function forkedFrom(ctx: MockContext, thread: ThreadRecord, body: { checkpoint_id?: unknown; checkpoint?: unknown }) {
  const id = requestedCheckpoint(body);
  return id === undefined ? undefined : findCheckpoint(ctx, thread.thread_id, id);
}

/** A scenario turn's `faults` as the stream writer takes it (the same shape as a fault rule's stream kinds). */
function turnFault(scenario: string, faults: Turn["faults"]): StreamFault | undefined {
  if (!faults) return undefined;
  const [kind, p] = Object.entries(faults)[0] as [StreamFault["kind"], { after_events: number; error?: string; message?: string }];
  return { id: `scenario:${scenario}`, kind, afterEvents: p.after_events, error: p.error ?? "InjectedFault", message: p.message ?? "fault injected by agent-platform-mock" };
}

const LINE_BREAK = /[\r\n]/;

/** A turn's missing events or store writes, a run's runs ahead or feedback keys when none: one frozen list, not a new one per run. */
const NONE: readonly never[] = Object.freeze([]);

/** The stream modes of a run as a set. */
function modesOf(streamMode: RunCreateBody["stream_mode"]): ReadonlySet<string> {
  return new Set(Array.isArray(streamMode) ? streamMode : [streamMode]);
}

export const runsIn = declareCollection<RunRecord>("runs");

/** A run's `config.configurable`. */
function configurableOf(kwargs: Record<string, unknown>): Record<string, unknown> {
  const config = isPlainObject(kwargs.config) ? kwargs.config : {};
  return isPlainObject(config.configurable) ? config.configurable : {};
}
