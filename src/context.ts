import { MockClock } from "./core/clock.js";
import { Random, type RandomState } from "./core/random.js";
import { parseDuration } from "./core/duration.js";
import { Journal, DEFAULT_JOURNAL } from "./http/journal.js";
import { RouteMatcher } from "./http/route-matcher.js";
import type { RouteTarget } from "./http/exchange.js";
import { Store } from "./store/store.js";
import { Faults, type FaultRuleInput } from "./http/faults.js";
import { EventBus } from "./core/event-bus.js";
import type { LifecycleMode, MockOptions } from "./options.js";

/** What `POST /_mock/reset` and `mock.reset(scope)` accept. */
export type ResetScope = "all" | "store" | "feedback" | "journal" | "scenarios" | "faults" | "traces";

/**
 * Everything one mock instance owns, handed to each service module. Nothing here is global: two
 * mocks in one process (two test files in one worker) never see each other's state.
 */
export class MockContext {
  readonly clock: MockClock;
  readonly random: Random;
  readonly store = new Store();
  readonly journal: Journal;
  /** Every route served, as the registrar mounted them: what requests are matched against (src/http/route-matcher.ts). */
  readonly routes = new RouteMatcher<RouteTarget>();
  /** Changes of this mock as they happen (`GET /_mock/events`, the inspector). */
  readonly events = new EventBus();
  readonly lifecycle: LifecycleMode;
  readonly lifecycleStepMs: number;
  readonly heartbeatMs: number;
  readonly checkResponses: boolean;
  /** Fault rules (DESIGN §8); those given at start come back on reset. */
  readonly faults: Faults;
  private faultsAtStart: FaultRuleInput[] = [];
  private readonly resetHooks: { scope: ResetScope; run: () => void }[] = [];
  private readonly closeHooks: (() => void)[] = [];
  private randomStart: RandomState | undefined;

  constructor(readonly options: MockOptions) {
    const seeded = options.seed !== undefined && options.seed !== null && options.seed !== "";
    const start = options.clock?.start ? Date.parse(options.clock.start) : undefined;
    if (start !== undefined && Number.isNaN(start)) throw new Error(`clock.start is not an ISO instant: ${options.clock?.start}`);
    this.clock = new MockClock({ mode: seeded ? "fixed" : "real", start, autoAdvance: options.clock?.autoAdvance });
    this.random = new Random(seeded ? options.seed : undefined);
    this.journal = new Journal(this.clock, { ...DEFAULT_JOURNAL, ...options.journal });
    this.lifecycle = options.lifecycle ?? "immediate";
    const step = parseDuration(options.lifecycleStep ?? "30s");
    if (step === undefined) throw new Error(`lifecycleStep is not a duration: ${options.lifecycleStep}`);
    this.lifecycleStepMs = step;
    this.heartbeatMs = options.heartbeatMs ?? 5000;
    this.checkResponses = options.checkResponses ?? process.env.AGENT_PLATFORM_MOCK_CHECK_RESPONSES === "1";
    this.faults = new Faults(this.random.derive("faults"));
  }

  /**
   * The origin the mock's own URLs are built on: the configured public URL, else the origin the request
   * was sent to (`requestOrigin`, which the HTTP edge reads from the request; domain code gets the
   * result in its RequestScope and never sees the request).
   */
  baseUrl(requestOrigin?: string): string {
    if (this.options.publicUrl) return this.options.publicUrl.replace(/\/+$/, "");
    return requestOrigin ?? "http://127.0.0.1:8123";
  }

  /** The tracing service's origin (`{tracing_url}` in the spec). */
  tracingUrl(requestOrigin?: string): string {
    return this.options.tracingUrl ? this.options.tracingUrl.replace(/\/+$/, "") : this.baseUrl(requestOrigin);
  }

  /** Something else to put back on reset (scenario registry, in-flight lifecycle, …). */
  onReset(scope: ResetScope, run: () => void): void {
    this.resetHooks.push({ scope, run });
  }

  /** Something to stop when the mock closes (in-flight runs and the timers they wait on). */
  onClose(run: () => void): void {
    this.closeHooks.push(run);
  }

  /** Stops in-flight work so that nothing keeps the process alive after the server closed. */
  close(): void {
    for (const hook of this.closeHooks) hook();
  }

  /** Marks the current state as the one reset() returns to; called once start-up loading is done. */
  markStarted(): void {
    this.faultsAtStart = this.faults.list().map(({ fired: _fired, ...rule }) => ({ ...rule, times: rule.times ?? undefined }));
    this.store.snapshot();
    this.randomStart = this.random.checkpoint();
  }

  reset(scope: ResetScope = "all"): void {
    if (scope === "all" || scope === "store") this.store.restore("store");
    if (scope === "all" || scope === "feedback") this.store.restore("feedback");
    if (scope === "all" || scope === "journal") this.journal.clear();
    if (scope === "all" || scope === "faults") {
      this.faults.clear();
      for (const rule of this.faultsAtStart) this.faults.add(rule);
    }
    if (scope === "all") {
      this.clock.reset();
      if (this.randomStart) this.random.restore(this.randomStart);
    }
    for (const hook of this.resetHooks) if (scope === "all" || hook.scope === scope) hook.run();
    this.events.emit("reset", () => ({ scope }));
  }
}
