import { MAX_INSTANT, type MockClock } from "../core/clock.js";
import { isPlainObject, setOwn } from "../core/json.js";
import type { StreamFault } from "../http/faults.js";
import type { Ending, ScenarioEvent } from "./scenario-types.js";
import type { ScenarioStep, ScenarioStoreWrite } from "../schemas/types.gen.js";
import { applyWrites, normalizeWrite, ReducerError, type Channels } from "./reducers.js";
import { chunkEvents, messageEvents, messageIds, messageMetadata, newMessages, type DerivedEvent } from "./derived-events.js";
import { checkpointEvents, taskResultEvents, taskStartEvents, type CheckpointEventContext, type PlayedCheckpoint } from "./checkpoint-events.js";
import { graphEnd, graphStart, nodeFinish, nodeStart } from "./chain-events.js";
import { taskId } from "./checkpoints.js";

/** One published event of a run; `id` is its position in the run's stream (0 = metadata). */
export interface Frame {
  event: string;
  /** Compact JSON, as it goes on the wire. */
  data: string;
  id: number;
  /** The event's number within its millisecond `at`: the `<seq>` of its stream id (streamIdOf). */
  seq: number;
  /** The stream mode that asks for it (`messages-tuple` for `messages`); null for metadata, feedback and error. */
  mode: string | null;
  /** When it was published, in ms on the mock's clock (the inspector's timeline). */
  at: number;
}

/**
 * The id a resumable stream sends (`id:` line, `Last-Event-ID`): the production server's Redis-stream
 * form `<ms>-<seq>`, the mock clock's milliseconds and the event's number within that millisecond.
 * Built when a stream sends it: most runs are not resumable.
 */
export function streamIdOf(frame: Frame): string {
  return `${frame.at}-${frame.seq}`;
}

/** Someone reading a run's stream: the HTTP response of the run or of a join. */
export interface StreamListener {
  frame(frame: Frame): void;
  heartbeat(): void;
  /** The run is over; `dropped` when its scenario ends with `disconnect` (close without a terminal event). */
  end(dropped: boolean): void;
}

export type Outcome =
  | { kind: "success"; values: Record<string, unknown> | null; interrupt?: { value: unknown; id: string; node: string; task: string }; feedback: Record<string, string> }
  | { kind: "error"; values: Record<string, unknown> | null; error: { error: string; message: string }; node?: string }
  | { kind: "disconnect"; values: Record<string, unknown> | null }
  | { kind: "cancelled"; values: Record<string, unknown> | null; action: "interrupt" | "rollback" };

/** What a run plays, with its templates already filled. */
export interface RunScript {
  run_id: string;
  thread_id: string;
  events: ScenarioEvent[];
  ending: Exclude<Ending, { http: unknown }>;
  /** Stream modes published (see eventMode). */
  modes: ReadonlySet<string>;
  subgraphs: boolean;
  /** The turn's `faults`, as the fault the run's own stream gets (a fault rule that hit the request wins). */
  fault?: StreamFault | undefined;
  /** The turn's writes to the long-term store (made by the run service when the run succeeds). */
  store?: readonly ScenarioStoreWrite[];
  /** Created with `stream_resumable: true`: its events carry ids and a join can replay them. */
  resumable: boolean;
  /** Mock milliseconds to wait before starting (`after_seconds`). */
  afterMs: number;
  /** Runs ahead of this one on the thread (multitask `enqueue`). */
  waitFor: readonly Promise<unknown>[];
  /** Thread values before the run (a rolled-back run leaves them). */
  priorValues: Record<string, unknown> | null;
  /** The turn's graph steps (the short form), played instead of `events`. */
  steps?: readonly ScenarioStep[] | undefined;
  /** The graph's channel reducers (reducers.ts): each step's writes are reduced into the state with them. */
  channels: Channels;
  /** A new message id (seeded uuid4), for messages a step writes without one. */
  newId: () => string;
  /** The state the run's steps start from: the prior state with the input (or a Command's update) applied. */
  startValues: Record<string, unknown> | null;
  /** An input the reducers refuse: the run fails with it before any step, as LangGraph's would. */
  startError?: ReducerError | undefined;
  /** The turn scripts `values` events: they, not the reducers, say what the state is. */
  scriptsValues: boolean;
  /** The run streams the state it starts from (values mode): it has input, or resumes. */
  streamsStart: boolean;
  /** The stream modes asked for that the turn does not script: derived from its steps. */
  derived: ReadonlySet<string>;
  /** The step number of the run's first node (LangGraph's superstep, counted on from the thread's). */
  firstStep: number;
  /** The run's metadata as its nodes see it (what `messages` tuples carry besides the task keys). */
  runMetadata: Record<string, unknown>;
  /** An interrupt id when the scenario gives none. */
  interruptId: string;
  /** The run's input (undefined for a resume): the `input` checkpoint's writes, the graph's input in `events`. */
  input: unknown;
  /** The checkpoint the run starts from (the thread's newest, or the one it forks from). */
  parentCheckpointId: string | null;
  /** What the run's checkpoint events share (checkpoint-events.ts). */
  checkpointContext: CheckpointEventContext;
  /** A new checkpoint id at this instant (seeded uuid7). */
  newCheckpointId: (at: number) => string;
}

/** One step of a run's graph: the nodes that ran, what they wrote, and the state after it. */
export interface RunStep {
  nodes: string[];
  writes: Record<string, unknown>;
  values: Record<string, unknown> | null;
  /** A `values` event has given the state after this step. */
  settled: boolean;
}

/** A step as played: its nodes with their writes, its number and its tasks' ids. */
interface PlayedStep {
  nodes: [string, unknown][];
  number: number;
  tasks: string[];
}

/** A root `updates` event, or an event named a step: the nodes it says ran and what each wrote. */
function nodeWritesOf(event: ScenarioEvent): [string, unknown][] | undefined {
  if (event.step === false) return undefined;
  if (typeof event.step === "string") return [[event.step, event.data]];
  if (event.event !== "updates" || !isPlainObject(event.data)) return undefined;
  const data = event.data;
  const nodes = Object.keys(data).filter((k) => !k.startsWith("__"));
  return nodes.length ? nodes.map((n) => [n, data[n]]) : undefined;
}

/** Side effects of a run on the store, done by the run service. */
/** What a run starts from that runs ahead of it change: read again once they have finished. */
export type RunStartFields = Pick<RunScript, "priorValues" | "startValues" | "startError" | "firstStep" | "parentCheckpointId">;

export interface RunHooks {
  /** A queued run's start, as the thread is when the runs ahead of it have finished. */
  restart?(): RunStartFields;
  running(): void;
  /** Creates the feedback tokens of a successful run: `{key: url}`. */
  feedback(): Record<string, string>;
  /** Records the outcome (run and thread status) — called before any stream is closed. */
  finish(outcome: Outcome): void;
}

/** Heartbeats one wait sends at most; past it the wait finishes in one sleep (see wait()). */
const MAX_BEATS_PER_WAIT = 1000;

/** The modes of checkpointEvents and of taskStartEvents / taskResultEvents. */
const CHECKPOINT_MODES = ["checkpoints", "debug"];
const TASK_MODES = ["tasks", "debug"];

const FINISHED: RunHooks = { running: () => {}, feedback: () => ({}), finish: () => {} };

/** An event's data as it goes on the wire: compact JSON (`null` for what JSON cannot say). */
export function eventJson(data: unknown): string {
  return JSON.stringify(data) ?? "null";
}

/** The stream mode a scenario event belongs to: `updates|sub:1` → updates, `messages` → messages-tuple, `messages/partial` → messages. */
export function eventMode(name: string): string {
  const bar = name.indexOf("|");
  const base = bar < 0 ? name : name.slice(0, bar);
  if (base === "messages") return "messages-tuple";
  return base.startsWith("messages/") ? "messages" : base;
}

/**
 * One run playing its scenario turn on the mock's clock. Events are published to every listener
 * and kept, so a join (`GET …/runs/{id}/stream`) can replay them after a `Last-Event-ID`.
 */
export class Execution {
  readonly frames: Frame[] = [];
  /** What cancel() asked for: the run stops at its next step. */
  private cancelled: "interrupt" | "rollback" | undefined;
  /** Interrupts a wait in progress on cancel(); made only by a run that waits (see signal). */
  private controller: AbortController | undefined;
  readonly done: Promise<Outcome>;
  outcome: Outcome | undefined;
  private resolveDone!: (o: Outcome) => void;
  private readonly listeners = new Set<StreamListener>();
  private lastBeat = 0;
  private values: Record<string, unknown> | null;
  /**
   * The graph steps played so far: each step of the short form, each node update (an `updates` event
   * of the root graph, streamed or not), with the state after it (its writes reduced into the state
   * before, unless a `values` event that follows says otherwise): each is a checkpoint when the run
   * finishes.
   */
  readonly steps: RunStep[] = [];
  /** Message ids the stream has shown or the nodes had as input: not streamed again (`messages` modes). */
  private readonly seenMessages = new Set<string>();
  /**
   * The checkpoints the run saved as it played, in order (runs.ts saves them under these ids): the
   * stream, the task ids and the thread's history name the same ones.
   */
  readonly checkpointIds: { id: string; at: number }[] = [];
  /** The newest checkpoint: the tasks of the next step are its tasks (their ids derive from its id). */
  private lastCheckpointId: string | null;
  /** A saved checkpoint the stream has not announced yet: announced when the next step's tasks are known (tick). */
  private pending: { checkpoint: PlayedCheckpoint; step?: RunStep } | undefined;

  constructor(
    readonly script: RunScript,
    private readonly clock: MockClock,
    private readonly heartbeatMs: number,
    private hooks: RunHooks,
  ) {
    this.values = script.priorValues;
    this.lastCheckpointId = script.parentCheckpointId;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /**
   * Where a join starts reading: a resumable run replays from the start, or after the event a
   * `Last-Event-ID` names; a run that is not resumable is followed live only, as on the production
   * server (its events are not buffered). Returns the position to subscribe after.
   */
  joinPosition(lastEventId: string | undefined): number {
    if (!this.script.resumable) return this.frames.length - 1;
    if (lastEventId === undefined) return -1;
    const seen = parseStreamId(lastEventId);
    if (!seen) return -1;
    let position = -1;
    for (const frame of this.frames) if ((frame.at - seen[0] || frame.seq - seen[1]) <= 0) position = frame.id;
    return position;
  }

  /** Replays the frames after position `afterId` (all with -1), then follows the run live. Returns the unsubscribe. */
  subscribe(listener: StreamListener, afterId = -1): () => void {
    for (const frame of this.frames) if (frame.id > afterId) listener.frame(frame);
    if (this.outcome) {
      listener.end(false);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  cancel(action: "interrupt" | "rollback"): void {
    if (this.outcome || this.cancelled) return;
    this.cancelled = action;
    this.controller?.abort(action);
  }

  async play(): Promise<void> {
    let outcome: Outcome;
    try {
      this.throwIfCancelled();
      // Most runs have none ahead: no promise and microtask for them.
      if (this.script.waitFor.length) {
        await this.waitForRunsAhead();
        // LangGraph starts a queued run from the thread's state then, not from the state it was created on.
        const fresh = this.hooks.restart?.();
        if (fresh) {
          Object.assign(this.script, fresh);
          this.values = fresh.priorValues;
          this.lastCheckpointId = fresh.parentCheckpointId;
        }
      }
      if (this.script.afterMs > 0) {
        this.lastBeat = this.clock.now();
        await this.wait(this.script.afterMs);
      }
      this.hooks.running();
      this.lastBeat = this.clock.now();
      this.publish("metadata", { run_id: this.script.run_id, attempt: 1 }, null);
      if (this.script.startError) throw this.script.startError;
      this.derive(graphStart(this.script.run_id, this.script.input ?? null, this.script.runMetadata));
      const hasInput = this.script.input !== undefined;
      if (hasInput) {
        // LangGraph saves the input as a checkpoint, then `__start__` (hidden: no task events) applies it.
        this.save({ source: "input", writes: { __start__: this.script.input }, values: this.script.priorValues ?? {} });
        this.tick(["__start__"]);
      }
      this.values = this.script.startValues;
      // LangGraph streams the state once `__start__` has applied the input (or, resuming, the state it resumes).
      if (this.script.streamsStart && this.values) this.derive({ event: "values", data: this.values, mode: "values" });
      if (hasInput) this.save({ source: "loop", writes: null, values: this.values ?? {} });
      const { events, steps } = this.script;
      if (steps) {
        for (const step of steps) {
          if (step.delay_ms) await this.wait(step.delay_ms);
          this.throwIfCancelled();
          this.afterStep(this.playStep([[step.node, step.update]], undefined, step.chunks));
        }
      } else {
        for (let i = 0; i < events.length; i++) {
          const event = events[i] as ScenarioEvent;
          if (event.delay_ms) await this.wait(event.delay_ms);
          this.throwIfCancelled();
          this.playEvent(event);
        }
      }
      outcome = this.end(this.script.ending);
    } catch (err) {
      if (this.cancelled) outcome = { kind: "cancelled", values: this.values, action: this.cancelled };
      else {
        // A bug in the mock: end the run the way the real server ends a crashed one.
        const error = { error: (err as Error)?.name ?? "Error", message: (err as Error)?.message ?? String(err) };
        this.publish("error", error, null);
        outcome = { kind: "error", values: this.values, error };
      }
    }
    this.outcome = outcome;
    this.hooks.finish(outcome);
    // The hooks close over the creating request; a finished run is kept for joins, its request is not.
    this.hooks = FINISHED;
    for (const listener of this.listeners) listener.end(outcome.kind === "disconnect");
    this.listeners.clear();
    this.resolveDone(outcome);
  }

  /**
   * One scripted event: sent as written (when its mode was asked for), and followed through the
   * state: an event that is a step (nodes and their writes) is reduced into it, with the modes the
   * turn does not script derived around it; a root `values` event is the state from then on.
   */
  private playEvent(event: ScenarioEvent): void {
    const writes = nodeWritesOf(event);
    const step = writes ? this.playStep(writes, event, undefined) : undefined;
    if (!step) this.publishScripted(event);
    if (event.event === "values" && isPlainObject(event.data)) {
      this.values = event.data;
      const last = this.steps.at(-1);
      if (last && !last.settled) {
        last.values = event.data;
        last.settled = true;
      }
    }
    if (step) this.afterStep(step);
  }

  /**
   * One graph step: the nodes' writes (their messages made messages with ids) reduced into the state,
   * the messages they add streamed, then the scripted event if the step is one; the caller sends what
   * follows the step (afterStep). A scripted event's writes are kept as written in the checkpoint. A
   * write the reducers refuse fails the run as in LangGraph, unless the turn scripts `values` (a
   * recording: its `values` events say what the state is).
   */
  private playStep(nodes: [string, unknown][], event: ScenarioEvent | undefined, chunks: number | undefined): PlayedStep {
    const { channels, newId, derived } = this.script;
    const number = this.script.firstStep + this.steps.length;
    const tasks = this.tick(nodes.map(([node]) => node));
    const input = this.values;
    const written = nodes.map(([node, write]): [string, unknown] => [node, normalizeWrite(write, channels, newId)]);
    let after = this.values;
    try {
      after = applyWrites(this.values, written.map(([, w]) => w), channels, newId);
    } catch (err) {
      if (!(err instanceof ReducerError) || !event || !this.script.scriptsValues) throw err;
    }
    if (derived.has("messages-tuple") || derived.has("messages")) {
      for (const id of messageIds(this.values, channels)) this.seenMessages.add(id);
      written.forEach(([node, write], i) => {
        const metadata = messageMetadata(this.script.runMetadata, tasks[i] as string, number, node);
        for (const m of newMessages(write, channels, this.seenMessages)) {
          const events = chunks && m.type === "ai" ? chunkEvents(m, metadata, chunks, derived) : messageEvents(m, metadata, derived);
          for (const e of events) this.derive(e);
        }
      });
    }
    if (derived.has("events")) {
      written.forEach(([node, write], i) => {
        const metadata = messageMetadata(this.script.runMetadata, tasks[i] as string, number, node);
        for (const e of nodeFinish(this.script.run_id, tasks[i] as string, node, number, metadata, input ?? {}, write)) this.derive(e);
      });
    }
    this.values = after;
    const writes: Record<string, unknown> = {};
    for (const [node, write] of written) setOwn(writes, node, write);
    this.steps.push({ nodes: written.map(([n]) => n), writes: event?.event === "updates" ? (event.data as Record<string, unknown>) : writes, values: after, settled: false });
    if (event) this.publishScripted(event);
    return { nodes: written, number, tasks };
  }

  /**
   * What follows a step, as LangGraph's loop sends it: per node its `updates` and its task result,
   * then `values`; the step's checkpoint is saved (and announced at the next tick).
   */
  private afterStep(step: PlayedStep): void {
    step.nodes.forEach(([node, write], i) => {
      const data: Record<string, unknown> = {};
      setOwn(data, node, write);
      this.derive({ event: "updates", data, mode: "updates" });
      if (this.derives(TASK_MODES)) for (const e of taskResultEvents(step.tasks[i] as string, node, write, [], step.number, this.clock.now())) this.derive(e);
    });
    if (this.values) this.derive({ event: "values", data: this.values, mode: "values" });
    const last = this.steps.at(-1) as RunStep;
    this.save({ source: "loop", writes: last.writes, values: last.values ?? {} }, last);
  }

  /**
   * A checkpoint saved: its id drawn now (seeded), announced at the next tick. The step it follows,
   * if any, gives its values when announced (a scripted `values` event may settle them later).
   */
  private save(c: Pick<PlayedCheckpoint, "source" | "writes" | "values">, step?: RunStep): void {
    const at = this.clock.now();
    const id = this.script.newCheckpointId(at);
    const number = this.script.firstStep - (this.script.input !== undefined ? 2 : 0) + this.checkpointIds.length;
    this.checkpointIds.push({ id, at });
    this.pending = { checkpoint: { ...c, id, parentId: this.lastCheckpointId, step: number, at }, step };
    this.lastCheckpointId = id;
  }

  /**
   * The start of a superstep (LangGraph's `tick`): the newest checkpoint is announced with these
   * nodes as its tasks (`checkpoints`, `debug`), then each task starts (`tasks`, `debug`; `__start__`
   * is hidden). The run's last tick (`final`) announces the state the run leaves. Returns the tasks' ids.
   */
  private tick(nodes: readonly string[], final = false): string[] {
    const from = this.lastCheckpointId ?? this.script.run_id;
    const ids = nodes.map((node) => taskId(from, node));
    const now = this.clock.now();
    const pending = this.pending;
    this.pending = undefined;
    if (pending && this.derives(CHECKPOINT_MODES)) {
      const c = { ...pending.checkpoint, values: final ? (this.values ?? {}) : pending.step ? (pending.step.values ?? {}) : pending.checkpoint.values };
      for (const e of checkpointEvents(this.script.checkpointContext, c, nodes, now)) this.derive(e);
    }
    const step = this.script.firstStep + this.steps.length;
    nodes.forEach((node, i) => {
      if (node === "__start__") return;
      if (this.derives(TASK_MODES)) for (const e of taskStartEvents(this.script.checkpointContext, ids[i] as string, node, this.values ?? {}, step, now)) this.derive(e);
      if (this.script.derived.has("events")) {
        const metadata = messageMetadata(this.script.runMetadata, ids[i] as string, step, node);
        this.derive(nodeStart(this.script.run_id, ids[i] as string, node, step, metadata, this.values ?? {}));
      }
    });
    return ids;
  }

  /** A scripted event, sent when its mode was asked for (and, with a namespace, subgraphs were). */
  private publishScripted(event: ScenarioEvent): void {
    const mode = eventMode(event.event);
    if (this.script.modes.has(mode) && (this.script.subgraphs || !event.event.includes("|"))) this.publish(event.event, event.data, mode);
  }

  /** Whether any of these modes is derived for the run: its events are built only then (most runs ask for none of them). */
  private derives(modes: readonly string[]): boolean {
    return modes.some((mode) => this.script.derived.has(mode));
  }

  /** A derived event, sent when the run asked for its mode and the turn does not script it. */
  private derive(e: DerivedEvent): void {
    if (this.script.derived.has(e.mode)) this.publish(e.event, e.data, e.mode);
  }

  private end(ending: RunScript["ending"]): Outcome {
    if (ending === "disconnect") return { kind: "disconnect", values: this.values };
    // A run that saved nothing yet (a resume without steps) saves the state it leaves.
    if (this.checkpointIds.length === 0) this.save({ source: "loop", writes: null, values: this.values ?? {} });
    if (typeof ending === "object" && "error" in ending) {
      const { node = "agent", ...error } = ending.error;
      // LangGraph's loop announces the last checkpoint with the failing node as its task, the task
      // starts, and its result carries the exception (no `updates`: an error write is not output).
      const [task] = this.tick([node], true) as [string];
      if (this.derives(TASK_MODES)) for (const e of taskResultEvents(task, node, {}, [], this.script.firstStep + this.steps.length, this.clock.now(), error)) this.derive(e);
      this.publish("error", error, null);
      return { kind: "error", values: this.values, error, node };
    }
    let interrupt: { value: unknown; id: string; node: string; task: string } | undefined;
    if (ending === "interrupt" || (typeof ending === "object" && "interrupt" in ending)) {
      const given = typeof ending === "object" ? ending.interrupt : { value: null };
      const node = given.node ?? "agent";
      // The interrupted node is the next step's task: it starts, and its result is the interrupt.
      const [task] = this.tick([node], true) as [string];
      interrupt = { value: given.value, id: given.id ?? this.script.interruptId, node, task };
      const interrupts = [{ value: interrupt.value, id: interrupt.id }];
      // LangGraph reports an interrupt in each of `updates` and `values` that was asked for, updates
      // first (docs/decisions/agent-server.md "Interrupts").
      for (const mode of ["updates", "values"]) {
        if (this.script.modes.has(mode)) this.publish(mode, { __interrupt__: interrupts }, mode);
      }
      if (this.derives(TASK_MODES)) for (const e of taskResultEvents(task, node, {}, interrupts, this.script.firstStep + this.steps.length, this.clock.now())) this.derive(e);
    } else {
      this.tick([], true);
    }
    this.derive(graphEnd(this.script.run_id, this.values ?? {}, this.script.runMetadata));
    const feedback = this.hooks.feedback();
    if (Object.keys(feedback).length) this.publish("feedback", feedback, null);
    return { kind: "success", values: this.values, interrupt, feedback };
  }

  private publish(event: string, data: unknown, mode: string | null): void {
    const at = this.clock.now();
    const previous = this.frames.at(-1);
    const seq = previous && previous.at === at ? previous.seq + 1 : 0;
    const frame: Frame = { event, data: eventJson(data), id: this.frames.length, seq, mode, at };
    this.frames.push(frame);
    for (const listener of this.listeners) listener.frame(frame);
  }

  /**
   * Waits on the mock's clock, with a heartbeat to every listener each heartbeatMs of mock time.
   * The work is bounded whatever the wait: a deadline past the clock's last instant is a RangeError
   * (it could never be reached), a clock that jumped over several beats gives one heartbeat, and
   * after MAX_BEATS_PER_WAIT heartbeats the rest of the wait is one sleep — a virtual-time wait of
   * years would otherwise step through millions of beats.
   */
  private async wait(ms: number): Promise<void> {
    const signal = this.signal();
    const deadline = this.clock.now() + ms;
    if (!(deadline <= MAX_INSTANT)) throw new RangeError(`a wait of ${ms} ms goes past ${new Date(MAX_INSTANT).toISOString()}, the last instant the clock can hold`);
    let beats = 0;
    while (this.clock.now() < deadline) {
      const beat = this.lastBeat + this.heartbeatMs;
      if (this.heartbeatMs > 0 && beat <= deadline && beats < MAX_BEATS_PER_WAIT) {
        await this.clock.sleep(beat - this.clock.now(), signal);
        const now = this.clock.now();
        // Beats the clock jumped over are coalesced into this one.
        this.lastBeat = now > beat ? beat + Math.floor((Math.min(now, deadline) - beat) / this.heartbeatMs) * this.heartbeatMs : beat;
        beats++;
        for (const listener of this.listeners) listener.heartbeat();
      } else {
        await this.clock.sleep(deadline - this.clock.now(), signal);
      }
    }
  }

  private throwIfCancelled(): void {
    if (this.cancelled) throw this.cancelled;
  }

  /**
   * Aborted when the run is cancelled: what its waits listen to. Made on the first wait, not with the
   * run: most runs of a burst never wait, and an AbortController per run adds up.
   */
  private signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.cancelled);
    }
    return this.controller.signal;
  }

  private async waitForRunsAhead(): Promise<void> {
    const signal = this.signal();
    if (signal.aborted) throw signal.reason;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      void Promise.all(this.script.waitFor).then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }
}

/** `<ms>-<seq>` as two numbers; a bare `<ms>` counts as `<ms>-0`. Undefined when it is neither. */
function parseStreamId(id: string): [number, number] | undefined {
  const m = /^(\d+)(?:-(\d+))?$/.exec(id.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : undefined;
}
