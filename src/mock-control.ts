import type { MockContext, ResetScope } from "./context.js";
import type { ClockState, ScenarioSummary } from "./schemas/types.gen.js";
import type { JournalEntry, JournalFilter } from "./http/journal.js";
import { formatTimestamp } from "./core/clock.js";
import { parseDuration } from "./core/duration.js";
import { LoadError, type LoadProblem } from "./core/load-error.js";
import { parseDocument, type SourceDocument } from "./core/read-documents.js";
import { ControlError, requireKnownKeys } from "./control-error.js";
import type { AdminRun, AgentServerControl, OverrideHandle, RunFilter, ScenarioInput } from "./agent-server/index.js";
import type { ControlPlaneControl, RevisionStatus } from "./control-plane/index.js";
import type { CapturedFeedback, CapturedTrace, FeedbackFilter, TraceFilter, TracingControl } from "./tracing/index.js";
import type { FaultRule, FaultRuleInput } from "./http/faults.js";
import { readFaultRules } from "./http/fault-rules-file.js";

export const RESET_SCOPES: readonly ResetScope[] = ["all", "store", "feedback", "journal", "scenarios", "faults", "traces"];

/** How long `waitFor` waits and for how many matches. */
export interface WaitOptions {
  /** Real milliseconds (not the mock's clock) before it rejects with a ControlError 408; default 5000. */
  timeout?: number;
  /** How many matches it waits for; default 1. */
  count?: number;
  /** Stops waiting (rejects with the signal's reason); `/_mock/wait/*` passes the request's. */
  signal?: AbortSignal;
}

/** What `mock.faults.add()` returns; `using fault = control.faults.add(…)` removes the rule at the block's end. */
export interface FaultHandle {
  id: string;
  /** How often the rule has fired so far. */
  readonly fired: number;
  remove(): void;
  [Symbol.dispose](): void;
}

// The vocabulary of the control interface, which the admin API and RemoteMock share.
export type { AdminRun, CapturedFeedback, CapturedTrace, FeedbackFilter, OverrideHandle, RevisionStatus, RunFilter, ScenarioInput, TraceFilter };

// The shapes the control surface answers with are the admin API's schemas (admin/control.json).
export type { ClockState, ScenarioSummary };

export interface MockSummary {
  seed: string | undefined;
  clock: string;
  lifecycle: string;
  fixtures: { files: string[]; deployments: number; oauthProviders: number; integrations: number };
  scenarios: string[];
}

/** The services' ports MockControl drives (app.ts wires them). */
export interface ServicePorts {
  agentServer: AgentServerControl;
  controlPlane: ControlPlaneControl;
  tracing: TracingControl;
}

/**
 * The one control interface of a mock (WireMock's `Admin`): everything a test can do besides the
 * simulated APIs — read captured feedback, requests and runs, load and remove scenarios, script the
 * deployment lifecycle, move the clock, reset. The library exposes it as `mockOf(app)` /
 * `mock.control`; `/_mock` is a thin HTTP adapter over the same methods, so the two cannot drift.
 * It throws `ControlError` (status and detail) for what it cannot do, and a `TypeError` for a wrong
 * argument — an unknown filter key among them, so a misspelt assertion never matches everything.
 * `RemoteMock` is the same interface over `/_mock`.
 */
export class MockControl {
  /** The waits under way: closing the mock rejects them, so no test hangs on a mock that is gone. */
  private readonly waiting = new Set<(err: Error) => void>();
  /** Set by close(): a later waitFor fails at once. */
  private closed = false;

  constructor(
    private readonly ctx: MockContext,
    private readonly services: ServicePorts,
    private readonly fixtureFiles: readonly string[] = [],
  ) {
    contexts.set(this, ctx);
    ctx.onClose(() => {
      this.closed = true;
      for (const stop of [...this.waiting]) stop(new ControlError(503, "The mock closed while a waitFor waited"));
    });
  }

  /** What was loaded at start and how the mock runs: the CLI's start banner. */
  summary(): MockSummary {
    return {
      seed: this.ctx.options.seed === undefined || this.ctx.options.seed === "" ? undefined : String(this.ctx.options.seed),
      clock: this.ctx.clock.mode === "fixed" ? "fixed (seeded; moves only when advanced)" : "real (wall clock)",
      lifecycle: this.ctx.lifecycle,
      fixtures: { files: [...this.fixtureFiles], ...this.services.controlPlane.counts() },
      scenarios: this.services.agentServer.scenarios().map((s) => s.name),
    };
  }

  /** Feedback recorded through token URLs (and the LangSmith API), in arrival order. */
  feedback(filter: FeedbackFilter = {}): CapturedFeedback[] {
    requireKnownKeys("feedback", filter);
    return this.services.tracing.feedback(filter);
  }

  /** Forgets captured feedback (tokens stay valid); returns how many records went. */
  clearFeedback(): number {
    return this.services.tracing.clearFeedback();
  }

  // Traces (issue 27)

  /** The runs the tracing service captured, in trace order (by dotted order); every given filter must match. */
  traces(filter: TraceFilter = {}): CapturedTrace[] {
    requireKnownKeys("trace", filter);
    if (filter.error !== undefined && typeof filter.error !== "boolean") throw new ControlError(400, `error must be true or false; got ${JSON.stringify(filter.error)}`);
    return this.services.tracing.traces(filter);
  }

  /** How many captured runs (and updates waiting for their run) were dropped to stay within the trace cap (oldest first) since the last reset. */
  droppedTraces(): number {
    return this.services.tracing.droppedTraces();
  }

  /** Forgets captured runs and projects; returns how many runs went. */
  clearTraces(): number {
    return this.services.tracing.clearTraces();
  }

  /** The request journal, oldest first (admin routes are never in it). */
  requests(filter: JournalFilter = {}): JournalEntry[] {
    requireKnownKeys("request", filter);
    if (filter.limit !== undefined && (!Number.isInteger(filter.limit) || filter.limit < 0)) {
      throw new TypeError(`limit must be a whole number ≥ 0; got ${JSON.stringify(filter.limit)}`);
    }
    return this.ctx.journal.list(filter);
  }

  clearRequests(): void {
    this.ctx.journal.clear();
  }

  /** Every run with the request body as sent, the scenario and turn it played, its status and feedback URLs. */
  runs(filter: RunFilter = {}): AdminRun[] {
    requireKnownKeys("run", filter);
    return this.services.agentServer.runs(filter);
  }

  run(runId: string): AdminRun {
    const run = this.services.agentServer.run(runId);
    if (!run) throw new ControlError(404, `Run ${runId} not found`);
    return run;
  }

  /** The loaded scenarios in match order. */
  scenarios(): ScenarioSummary[] {
    return this.services.agentServer.scenarios();
  }

  /** Loads scenario files, folders or objects after start; returns the names loaded. */
  async loadScenarios(input: string | ScenarioInput | readonly (string | ScenarioInput)[]): Promise<string[]> {
    return this.services.agentServer.loadScenarios(Array.isArray(input) ? input : [input as string | ScenarioInput]);
  }

  /**
   * Loads a scenario file's content (JSON or YAML: one scenario or a list), as an upload. A bad one is
   * refused whole: ControlError 422 with the problems (file, JSON pointer, reason).
   */
  loadScenarioText(text: string, format: "json" | "yaml"): string[] {
    return refusedAs422(() => this.services.agentServer.addScenarios(...uploaded(text, format, "scenarios")));
  }

  /**
   * Adds scenarios (files, folders or objects) that win over every other loaded scenario, whatever its
   * priority, until the returned handle is called (or disposed: `using off = mock.use(…)`) or the
   * scenarios are reset — MSW's `server.use()`. A same-named scenario is hidden meanwhile.
   */
  use(...scenarios: (string | ScenarioInput)[]): OverrideHandle {
    return this.services.agentServer.useScenarios(scenarios);
  }

  /** use() with a scenario file's content (JSON or YAML: one scenario or a list), as loadScenarioText() loads one. */
  useScenarioText(text: string, format: "json" | "yaml"): OverrideHandle {
    return refusedAs422(() => this.services.agentServer.useScenarioDocuments(...uploaded(text, format, "overrides")));
  }

  removeScenario(name: string): void {
    if (!this.services.agentServer.removeScenario(name)) throw new ControlError(404, `Scenario '${name}' not found`);
  }

  /** Makes the deployment's next (or in-flight) revision fail when it reaches `at`. */
  failDeployment(deploymentId: string, at: RevisionStatus): { deployment_id: string; at: RevisionStatus } & Record<string, unknown> {
    return this.services.controlPlane.failDeployment(deploymentId, at);
  }

  /** Moves the deployment's in-flight revision on by `steps` lifecycle steps. */
  advanceDeployment(deploymentId: string, steps = 1): { deployment_id: string; revision_id: string; status: string | undefined; in_flight: boolean } {
    return this.services.controlPlane.advanceDeployment(deploymentId, steps);
  }

  /**
   * Fault rules (DESIGN §8): `add(rule)` returns a handle (`id`, `fired`, `remove()`); a bad rule is a
   * ControlError 422 naming each problem.
   */
  get faults() {
    const faults = this.ctx.faults;
    return {
      add: (rule: FaultRuleInput): FaultHandle => {
        const [checked] = refusedAs422(() => readFaultRules([rule]) as [FaultRuleInput]);
        let added: FaultRule;
        try {
          added = faults.add(checked);
        } catch (err) {
          if (err instanceof RangeError) throw new ControlError(409, err.message);
          throw err;
        }
        const remove = () => void faults.remove(added.id);
        return {
          id: added.id,
          get fired() {
            return faults.get(added.id)?.fired ?? 0;
          },
          remove,
          [Symbol.dispose]: remove,
        };
      },
      list: (): FaultRule[] => faults.list(),
      remove: (id: string): void => {
        if (!faults.remove(id)) throw new ControlError(404, `Fault rule ${id} not found`);
      },
      clear: (): void => faults.clear(),
    };
  }

  /** Back to the state right after start (default), or just one part of it. */
  reset(scope: ResetScope = "all"): void {
    if (!RESET_SCOPES.includes(scope)) {
      throw new ControlError(400, `scope must be one of ${RESET_SCOPES.map((s) => `"${s}"`).join(", ")}; got ${JSON.stringify(scope)}`);
    }
    this.ctx.reset(scope);
  }

  /**
   * Resolves as soon as what a test expects has arrived — no polling: `await mock.control.waitFor.feedback({ key:
   * "user_liked" })`. Each resolves with every match (at least `count`, default 1), and rejects after
   * `timeout` ms of real time (default 5000) with a ControlError 408 saying what it waited for and what
   * there is. Each waits as one more subscriber of what it watches (the change feed is another).
   */
  get waitFor() {
    const { journal } = this.ctx;
    const { agentServer, tracing } = this.services;
    return {
      feedback: (filter: FeedbackFilter = {}, options: WaitOptions = {}) => this.#waitUntil("feedback", () => this.feedback(filter), filter, (l) => tracing.onFeedback(l), options),
      request: (filter: JournalFilter = {}, options: WaitOptions = {}) => this.#waitUntil("request", () => this.requests(filter), filter, (l) => journal.subscribe(l), options),
      run: (filter: RunFilter = {}, options: WaitOptions = {}) => this.#waitUntil("run", () => this.runs(filter), filter, (l) => agentServer.onRuns(l), options),
      trace: (filter: TraceFilter = {}, options: WaitOptions = {}) => this.#waitUntil("trace", () => this.traces(filter), filter, (l) => this.ctx.events.subscribe((e) => e.type.startsWith("trace.") && l()), options),
    };
  }

  #waitUntil<T>(what: string, probe: () => T[], filter: object, subscribe: (listener: () => void) => () => void, options: WaitOptions): Promise<T[]> {
    const count = options.count ?? 1;
    const timeout = options.timeout ?? 5000;
    let first: T[];
    try {
      first = probe(); // also refuses an unknown filter key before anything waits
    } catch (err) {
      return Promise.reject(err);
    }
    if (first.length >= count) return Promise.resolve(first);
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    // Nothing can arrive any more: fail now rather than at the timeout.
    if (this.closed) return Promise.reject(new ControlError(503, "The mock is closed: nothing more will arrive"));
    return new Promise((resolve, reject) => {
      const stop = (err: Error) => done(() => reject(err));
      const onAbort = () => stop(options.signal?.reason as Error);
      const done = (finish: () => void) => {
        clearTimeout(timer);
        unsubscribe();
        this.waiting.delete(stop);
        options.signal?.removeEventListener("abort", onAbort);
        finish();
      };
      const unsubscribe = subscribe(() => {
        const found = probe();
        if (found.length >= count) done(() => resolve(found));
      });
      const timer = setTimeout(() => {
        const have = probe().length;
        stop(new ControlError(408, `waited ${timeout} ms for ${count} ${what}${count === 1 ? "" : "s"} matching ${JSON.stringify(filter)}; ${have} match${have === 1 ? "" : "es"} so far`));
      }, timeout);
      this.waiting.add(stop);
      options.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The mock's clock: `now()`, `advance("5m")`, `set("2026-01-01T00:00:00Z")`, `state()`. */
  get clock() {
    const ctx = this.ctx;
    const clock = ctx.clock;
    return {
      now: () => new Date(clock.now()),
      /** Moves the clock forward by a duration ("250ms", "5s", "1h30m") or a number of ms. RangeError past the last instant a Date holds. */
      advance: (by: string | number) => {
        const ms = parseDuration(by);
        if (ms === undefined) throw new TypeError(`advance must be a duration such as "250ms", "5s", "5m", "1h" or a number of milliseconds; got ${JSON.stringify(by)}`);
        clock.advance(ms);
      },
      set: (iso: string) => {
        const ms = typeof iso === "string" ? Date.parse(iso) : NaN;
        if (Number.isNaN(ms)) throw new TypeError(`set must be an ISO 8601 instant; got ${JSON.stringify(iso)}`);
        clock.set(ms);
      },
      state: (): ClockState => ({ now: formatTimestamp(clock.now()), mode: clock.mode, auto_advance: clock.autoAdvance, lifecycle: ctx.lifecycle }),
    };
  }
}

/** A scenario file's content as sent to `/_mock/<path>`, parsed: the documents and the problems so far. */
function uploaded(text: string, format: "json" | "yaml", path: string): [SourceDocument[], LoadProblem[]] {
  if (!text.trim()) throw new ControlError(400, "Send a scenario file's content (JSON or YAML): one scenario or a list of scenarios");
  const problems: LoadProblem[] = [];
  const doc = parseDocument(`<POST /_mock/${path}>.${format}`, text, problems, true);
  return [doc ? [doc] : [], problems];
}

/** What does not load (a LoadError) is a ControlError 422 with its problems (file, JSON pointer, reason). */
function refusedAs422<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof LoadError) throw new ControlError(422, err.problems);
    throw err;
  }
}

const contexts = new WeakMap<MockControl, MockContext>();

/**
 * The context behind a control surface: for the server that closes it and the mock's own tests. Not
 * part of the package's API (index.ts does not export it): users drive the mock through MockControl.
 */
export function contextOf(control: MockControl): MockContext {
  const ctx = contexts.get(control);
  if (!ctx) throw new TypeError("contextOf() takes a MockControl");
  return ctx;
}
