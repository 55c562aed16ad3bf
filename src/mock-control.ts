import type { MockContext, ResetScope } from "./context.js";
import type { JournalEntry, JournalFilter } from "./http/journal.js";
import { parseDuration } from "./core/duration.js";
import type { AgentServer } from "./agent-server/index.js";
import type { ScenarioInput } from "./agent-server/scenario-types.js";
import { capturedFeedback, type CapturedFeedback, type FeedbackFilter } from "./tracing/captured-feedback.js";

/**
 * What a test can do with a running mock besides HTTP: read captured feedback and requests, load
 * scenarios, move the clock and reset. The same operations are served under /_mock for other languages.
 */
export class MockControl {
  constructor(
    private readonly ctx: MockContext,
    private readonly agent: AgentServer,
  ) {}

  /** Feedback recorded through token URLs (and the LangSmith API), in arrival order. */
  feedback(filter: FeedbackFilter = {}): CapturedFeedback[] {
    return capturedFeedback(this.ctx, filter);
  }

  /** The request journal, oldest first (admin routes are never in it). */
  requests(filter: JournalFilter = {}): JournalEntry[] {
    return this.ctx.journal.list(filter);
  }

  /** Loads scenario files, folders or objects after start; returns the names loaded. */
  async loadScenarios(input: string | ScenarioInput | readonly (string | ScenarioInput)[]): Promise<string[]> {
    return this.agent.loadScenarios(Array.isArray(input) ? input : [input as string | ScenarioInput]);
  }

  /** Back to the state right after start (default), or just one part of it. */
  reset(scope: ResetScope = "all"): void {
    this.ctx.reset(scope);
  }

  /** The mock's clock: `now()`, `advance("5m")`, `set("2026-01-01T00:00:00Z")`. */
  get clock() {
    const clock = this.ctx.clock;
    return {
      now: () => new Date(clock.now()),
      advance: (by: string | number) => {
        const ms = parseDuration(by);
        if (ms === undefined) throw new TypeError(`not a duration: ${String(by)}`);
        clock.advance(ms);
      },
      set: (iso: string) => {
        const ms = Date.parse(iso);
        if (Number.isNaN(ms)) throw new TypeError(`not an ISO instant: ${iso}`);
        clock.set(ms);
      },
    };
  }

  /** The mock's context, for advanced use and the mock's own tests. */
  get context(): MockContext {
    return this.ctx;
  }
}
