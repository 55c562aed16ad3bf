/** A scenario as written in a scenario file (DESIGN §5); the schema is src/schemas/agent-server/scenario.json. */
export type ScenarioInput = Record<string, unknown>;

/** One scripted stream event. `data` may hold `{{templates}}` until the run fills them. */
export interface ScenarioEvent {
  event: string;
  data: unknown;
  delay_ms?: number;
}

export type Ending =
  | "success"
  | "interrupt"
  | "disconnect"
  | { error: { error: string; message: string } }
  | { interrupt: { value: unknown; id?: string; node?: string } }
  | { http: { status: number; detail?: unknown } };

export interface Turn {
  description?: string;
  events?: ScenarioEvent[];
  end?: Ending;
}

export interface ScenarioMatch {
  assistant_id?: string;
  thread_id?: string;
  input?: unknown;
  metadata?: Record<string, unknown>;
}

/** A loaded scenario: the file's content, checked, with its single-turn shorthand expanded. */
export interface Scenario {
  name: string;
  description?: string;
  /** The graph this scenario belongs to, when it names one. */
  graph_id?: string;
  priority: number;
  /** Serves one run, then stops matching. */
  once: boolean;
  match: ScenarioMatch;
  turns: Turn[];
  /** File (or `<scenario object n>`) it came from, and its JSON pointer there. */
  source: { file: string; pointer: string };
}
