import type { ResetScope } from "./context.js";
import type { JournalEntry, JournalFilter } from "./http/journal.js";
import type { FaultRule, FaultRuleInput } from "./http/faults.js";
import type { AdminRun, CapturedFeedback, CapturedTrace, ClockState, FeedbackFilter, MockControl, RevisionStatus, RunFilter, ScenarioInput, ScenarioSummary, TraceFilter, WaitOptions } from "./mock-control.js";
import { ControlError, requireKnownKeys } from "./control-error.js";
import { LoadError, type LoadProblem } from "./core/load-error.js";
import { readDocuments } from "./core/read-documents.js";

/** What `RemoteMock.use()` returns: call it (or `await using off = await mock.use(…)`) to undo the use(). */
export interface RemoteOverrideHandle {
  (): Promise<void>;
  /** The override's id in `/_mock/overrides/{id}`. */
  readonly id: string;
  /** Names of the scenarios this use() added. */
  readonly names: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `RemoteMock.faults.add()` returns. */
export interface RemoteFaultHandle {
  id: string;
  /** How often the rule has fired so far (0 once it is removed). */
  fired(): Promise<number>;
  remove(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * `MockControl`'s methods as `RemoteMock` has them: the same names, arguments and results, each as a
 * promise. Only the handles differ (their undo is a request too), and `summary()` (the CLI's start
 * banner) and `context` (the process's own state) stay in-process.
 */
type Remote<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : Remote<T[K]> };
export type RemoteControl = Remote<Omit<MockControl, "summary" | "use" | "useScenarioText" | "faults" | "clock">> & {
  use(...scenarios: (string | ScenarioInput)[]): Promise<RemoteOverrideHandle>;
  useScenarioText(text: string, format: "json" | "yaml"): Promise<RemoteOverrideHandle>;
  readonly faults: Remote<Omit<MockControl["faults"], "add">> & { add(rule: FaultRuleInput): Promise<RemoteFaultHandle> };
  readonly clock: Remote<MockControl["clock"]>;
};

/**
 * A mock running in another process (a vitest globalSetup, a CLI started by Jest or Playwright),
 * driven through its admin API (`/_mock`): the whole of `MockControl` — WireMock's idea of one
 * interface with two implementations — with each method answering a promise. It throws what the
 * library throws: a `TypeError` for a wrong filter, a `LoadError` for scenarios that do not load, a
 * `ControlError` (status and detail) for everything `/_mock` refuses. File and folder paths given to
 * `loadScenarios()` and `use()` are read by this process and sent as their content.
 */
export class RemoteMock implements RemoteControl {
  constructor(
    /** Origin of the control plane and agent server. */
    readonly url: string,
    /** Origin of the tracing service. */
    readonly tracingUrl: string = url,
    private readonly adminToken?: string,
  ) {}

  /** The browser inspector's address (docs/inspector.md). */
  get inspectorUrl(): string {
    return `${this.url.replace(/\/+$/, "")}/_mock/ui`;
  }

  async feedback(filter: FeedbackFilter = {}): Promise<CapturedFeedback[]> {
    requireKnownKeys("feedback", filter);
    return (await this.call<{ items: CapturedFeedback[] }>("GET", `/feedback${query(filter)}`)).items;
  }

  /** Forgets captured feedback (tokens stay valid); resolves with how many records went. */
  async clearFeedback(): Promise<number> {
    return (await this.call<{ deleted: number }>("DELETE", "/feedback")).deleted;
  }

  /** The runs the tracing service captured, in trace order (`GET /_mock/traces`). */
  async traces(filter: TraceFilter = {}): Promise<CapturedTrace[]> {
    requireKnownKeys("trace", filter);
    return (await this.call<{ items: CapturedTrace[] }>("GET", `/traces${query(filter)}`)).items;
  }

  /** How many captured runs (and updates waiting for their run) the tracing service's cap dropped since the last reset. */
  async droppedTraces(): Promise<number> {
    return (await this.call<{ dropped: number }>("GET", "/traces")).dropped;
  }

  /** Forgets captured runs and projects; resolves with how many runs went. */
  async clearTraces(): Promise<number> {
    return (await this.call<{ deleted: number }>("DELETE", "/traces")).deleted;
  }

  async requests(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    requireKnownKeys("request", filter);
    return (await this.call<{ items: JournalEntry[] }>("GET", `/requests${query(filter)}`)).items;
  }

  async clearRequests(): Promise<void> {
    await this.call("DELETE", "/requests");
  }

  async runs(filter: RunFilter = {}): Promise<AdminRun[]> {
    requireKnownKeys("run", filter);
    return (await this.call<{ items: AdminRun[] }>("GET", `/runs${query(filter)}`)).items;
  }

  async run(runId: string): Promise<AdminRun> {
    return this.call<AdminRun>("GET", `/runs/${encodeURIComponent(runId)}`);
  }

  /** The loaded scenarios in match order. */
  async scenarios(): Promise<ScenarioSummary[]> {
    return (await this.call<{ items: ScenarioSummary[] }>("GET", "/scenarios")).items;
  }

  /** Loads scenario objects, files or folders (newest wins at equal priority; a loaded name is replaced); resolves with the names. */
  async loadScenarios(input: string | ScenarioInput | readonly (string | ScenarioInput)[]): Promise<string[]> {
    const scenarios = readScenarios(Array.isArray(input) ? input : [input as string | ScenarioInput]);
    return this.scenarioLoad(async () => (await this.call<{ loaded: string[] }>("POST", "/scenarios", scenarios)).loaded);
  }

  /** Loads a scenario file's content (JSON or YAML); a bad one is a ControlError 422 with the problems. */
  async loadScenarioText(text: string, format: "json" | "yaml"): Promise<string[]> {
    return (await this.call<{ loaded: string[] }>("POST", "/scenarios", text, format)).loaded;
  }

  /**
   * Adds scenarios that win over every other until the handle is called (or disposed:
   * `await using off = await mock.use(…)`) or the scenarios are reset — MSW's `server.use()`.
   */
  async use(...scenarios: (string | ScenarioInput)[]): Promise<RemoteOverrideHandle> {
    const body = readScenarios(scenarios);
    return this.overrideHandle(await this.scenarioLoad(() => this.call<{ id: string; names: string[] }>("POST", "/overrides", body)));
  }

  /** use() with a scenario file's content (JSON or YAML); a bad one is a ControlError 422 with the problems. */
  async useScenarioText(text: string, format: "json" | "yaml"): Promise<RemoteOverrideHandle> {
    return this.overrideHandle(await this.call<{ id: string; names: string[] }>("POST", "/overrides", text, format));
  }

  private overrideHandle({ id, names }: { id: string; names: string[] }): RemoteOverrideHandle {
    let undone: Promise<void> | undefined;
    // Called twice, it asks once: the library's handle does nothing the second time either.
    const off = () => (undone ??= this.call("DELETE", `/overrides/${encodeURIComponent(id)}`).then(() => undefined));
    return Object.assign(off, { id, names, [Symbol.asyncDispose]: off });
  }

  async removeScenario(name: string): Promise<void> {
    await this.call("DELETE", `/scenarios/${encodeURIComponent(name)}`);
  }

  /** Makes the deployment's next (or in-flight) revision fail when it reaches `at`. */
  async failDeployment(deploymentId: string, at: RevisionStatus): Promise<{ deployment_id: string; at: RevisionStatus } & Record<string, unknown>> {
    return this.call("POST", `/deployments/${encodeURIComponent(deploymentId)}/fail`, { at });
  }

  /** Moves the deployment's in-flight revision on by `steps` lifecycle steps. */
  async advanceDeployment(deploymentId: string, steps = 1): Promise<{ deployment_id: string; revision_id: string; status: string | undefined; in_flight: boolean }> {
    return this.call("POST", `/deployments/${encodeURIComponent(deploymentId)}/advance`, { steps });
  }

  /** Fault rules (docs/faults.md): `add(rule)` resolves with a handle (`id`, `fired()`, `remove()`). */
  readonly faults = {
    add: async (rule: FaultRuleInput): Promise<RemoteFaultHandle> => {
      const { id } = await this.call<FaultRule>("POST", "/faults", rule);
      const remove = async () => {
        // As the library's handle: removing a rule that is gone already is no error.
        await this.call("DELETE", `/faults/${encodeURIComponent(id)}`).catch((err: unknown) => {
          if (!(err instanceof ControlError && err.status === 404)) throw err;
        });
      };
      return { id, fired: async () => (await this.faults.list()).find((r) => r.id === id)?.fired ?? 0, remove, [Symbol.asyncDispose]: remove };
    },
    list: async (): Promise<FaultRule[]> => (await this.call<{ items: FaultRule[] }>("GET", "/faults")).items,
    remove: async (id: string): Promise<void> => void (await this.call("DELETE", `/faults/${encodeURIComponent(id)}`)),
    clear: async (): Promise<void> => void (await this.call("DELETE", "/faults")),
  };

  /** Back to the state right after start (default), or just one part of it. */
  async reset(scope: ResetScope = "all"): Promise<void> {
    await this.call("POST", "/reset", { scope });
  }

  /**
   * Resolves as soon as what a test expects has arrived (a long poll on `/_mock/wait/*`): with every
   * match, at least `count` (default 1); a ControlError 408 after `timeout` real ms (default 5000, at
   * most 120000 over HTTP).
   */
  readonly waitFor = {
    feedback: (filter: FeedbackFilter = {}, options: WaitOptions = {}): Promise<CapturedFeedback[]> => this.wait("feedback", "feedback", filter, options),
    request: (filter: JournalFilter = {}, options: WaitOptions = {}): Promise<JournalEntry[]> => this.wait("request", "requests", filter, options),
    run: (filter: RunFilter = {}, options: WaitOptions = {}): Promise<AdminRun[]> => this.wait("run", "runs", filter, options),
    trace: (filter: TraceFilter = {}, options: WaitOptions = {}): Promise<CapturedTrace[]> => this.wait("trace", "traces", filter, options),
  };

  /** The mock's clock: `now()`, `advance("5m")`, `set("2026-01-01T00:00:00Z")`, `state()`. */
  readonly clock = {
    now: async (): Promise<Date> => new Date(Date.parse((await this.clock.state()).now)),
    /** Moves the clock forward by a duration ("250ms", "5s", "1h30m") or a number of ms. */
    advance: async (by: string | number): Promise<void> => void (await this.moveClock({ advance: by })),
    set: async (iso: string): Promise<void> => void (await this.moveClock({ set: iso })),
    state: (): Promise<ClockState> => this.call<ClockState>("GET", "/clock"),
  };

  /** `clock.advance(by)`. */
  async advanceClock(by: string | number): Promise<void> {
    await this.clock.advance(by);
  }

  private async wait<T>(what: "feedback" | "request" | "run" | "trace", path: string, filter: object, options: WaitOptions): Promise<T[]> {
    requireKnownKeys(what, filter);
    const params = { ...filter, count: options.count, timeout: options.timeout };
    return (await this.call<{ items: T[] }>("GET", `/wait/${path}${query(params)}`, undefined, undefined, options.signal)).items;
  }

  /** The library's clock refuses a bad value with a TypeError; /_mock answers 400 with the same words. */
  private async moveClock(body: { advance?: string | number; set?: string }): Promise<ClockState> {
    try {
      return await this.call<ClockState>("POST", "/clock", body);
    } catch (err) {
      if (err instanceof ControlError && err.status === 400 && typeof err.detail === "string") throw new TypeError(err.detail);
      throw err;
    }
  }

  /** A scenario load the mock refuses is a LoadError with its problems, as the library's loadScenarios() and use() throw. */
  private async scenarioLoad<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      if (err instanceof ControlError && err.status === 422 && Array.isArray(err.detail)) throw new LoadError(err.detail as LoadProblem[], "scenarios");
      throw err;
    }
  }

  private async call<T>(method: string, path: string, body?: unknown, format?: "json" | "yaml", signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = format === "yaml" ? "application/yaml" : "application/json";
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    const text = body === undefined ? undefined : typeof body === "string" && format ? body : JSON.stringify(body);
    const res = await fetch(`${this.url}/_mock${path}`, { method, headers, body: text, signal });
    const data = (await res.json()) as T & { detail?: unknown };
    if (!res.ok) throw new ControlError(res.status, data.detail ?? data);
    return data;
  }
}

/**
 * Scenario objects as given, and the scenarios of files and folders read here (the test's process,
 * whose working folder the paths are relative to), in order. A file that cannot be read or parsed is
 * a LoadError naming it, as the library's.
 */
function readScenarios(inputs: readonly (string | ScenarioInput)[]): unknown[] {
  const problems: LoadProblem[] = [];
  const out: unknown[] = [];
  for (const input of inputs) {
    if (typeof input !== "string") out.push(input);
    else for (const doc of readDocuments([input], problems, true)) out.push(...(Array.isArray(doc.content) ? doc.content : [doc.content]));
  }
  if (problems.length) throw new LoadError(problems, "scenarios");
  return out;
}

function query(filter: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}
