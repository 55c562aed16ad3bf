import type { ResetScope } from "./context.js";
import type { JournalEntry, JournalFilter } from "./http/journal.js";
import type { CapturedFeedback, FeedbackFilter } from "./tracing/captured-feedback.js";
import type { CapturedTrace, TraceFilter } from "./tracing/trace-views.js";
import type { ScenarioInput } from "./agent-server/scenario-types.js";

/**
 * A mock running in another process (a vitest globalSetup, a CLI started by Jest or Playwright),
 * driven through its admin API (`/_mock`): the parts of MockServer a test needs.
 */
export class RemoteMock {
  constructor(
    /** Origin of the control plane and agent server. */
    readonly url: string,
    /** Origin of the tracing service. */
    readonly tracingUrl: string = url,
    private readonly adminToken?: string,
  ) {}

  async feedback(filter: FeedbackFilter = {}): Promise<CapturedFeedback[]> {
    return (await this.call<{ items: CapturedFeedback[] }>("GET", `/feedback${query(filter)}`)).items;
  }

  /** The runs the tracing service captured, in trace order (`GET /_mock/traces`). */
  async traces(filter: TraceFilter = {}): Promise<CapturedTrace[]> {
    return (await this.call<{ items: CapturedTrace[] }>("GET", `/traces${query(filter)}`)).items;
  }

  async requests(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    return (await this.call<{ items: JournalEntry[] }>("GET", `/requests${query(filter)}`)).items;
  }

  /** Loads scenario objects (newest wins at equal priority; a loaded name is replaced); returns the names. */
  async loadScenarios(scenarios: ScenarioInput | readonly ScenarioInput[]): Promise<string[]> {
    return (await this.call<{ loaded: string[] }>("POST", "/scenarios", scenarios)).loaded;
  }

  async reset(scope: ResetScope = "all"): Promise<void> {
    await this.call("POST", "/reset", { scope });
  }

  /** Moves the mock's clock: `advance("5m")`, or to an instant with `set`. */
  async advanceClock(by: string | number): Promise<void> {
    await this.call("POST", "/clock", { advance: by });
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    const res = await fetch(`${this.url}/_mock${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = (await res.json()) as T & { detail?: unknown };
    if (!res.ok) throw new Error(`${method} /_mock${path} answered ${res.status}: ${JSON.stringify(data.detail ?? data)}`);
    return data;
  }
}

function query(filter: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}
