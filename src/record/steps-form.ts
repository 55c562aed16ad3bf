import { isPlainObject, omit } from "../core/json.js";
import { applyWrites, DEFAULT_CHANNELS, normalizeWrite, ReducerError, toMessage } from "../agent-server/reducers.js";

/** A recorded stream event once redacted and templated, with its arrival time on the recorder's clock. */
export interface TimedEvent {
  event: string;
  data: unknown;
  atMs: number;
}

/** A step of the short form (docs/scenarios.md "Steps: the short form"). */
export interface RecordedStep {
  node: string;
  update: unknown;
  delay_ms?: number;
}

export interface StepsContext {
  /** The stream modes the run was created with. */
  modes: ReadonlySet<string>;
  /** The thread's state before the run, when the recording knows it (the last `values` it saw). */
  prior: Record<string, unknown> | undefined;
  /** The run request's `input` and `command`, redacted and templated as the events are. */
  input: unknown;
  command: unknown;
}

/** Modes the mock derives from steps exactly as LangGraph streams them, and that a recording can check. */
const CHECKED_MODES = new Set(["updates", "values"]);
/** A node a step may name: not LangGraph's own (`__start__`, `__interrupt__`…), one line, no `|`. */
const STEP_NODE = /^(?!__)[^|\r\n]+$/;
/** Ids the reducers give messages that had none: they never equal a recorded id. */
const NEW_ID = "\u0000new-";

/**
 * A recorded turn as `steps`, or undefined when replaying steps might not give the recorded stream.
 * The rule (docs/recording.md "Steps or events"): the run asked for `updates` and at most `values`
 * besides; every event is a root `updates` naming one node or a root `values`; each update is already
 * what the mock's own normalisation makes of it (messages whole, with ids); and, when `values` was
 * asked for, the values came where the derivation sends them (the start, then after each update), each
 * equal to what the mock's reducers make of the one before and the update (the first: the prior state
 * and the run's input). Compared as JSON text, so key order counts too.
 */
export function stepsOf(events: readonly TimedEvent[], context: StepsContext): RecordedStep[] | undefined {
  const { modes } = context;
  if (!modes.has("updates") || [...modes].some((m) => !CHECKED_MODES.has(m))) return undefined;
  const updates = events.filter((e) => e.event === "updates");
  if (updates.length === 0 || events.some((e) => e.event !== "updates" && e.event !== "values")) return undefined;
  let fresh = 0;
  const newId = () => `${NEW_ID}${(fresh += 1)}`;
  const steps: RecordedStep[] = [];
  let previousAt = 0;
  for (const e of updates) {
    if (!isPlainObject(e.data)) return undefined;
    const nodes = Object.keys(e.data);
    const node = nodes[0];
    // A step's node and update have the scenario schema's shape (ScenarioStep); anything else stays an event.
    if (nodes.length !== 1 || node === undefined || !STEP_NODE.test(node)) return undefined;
    const update = e.data[node];
    if (update !== null && !isPlainObject(update)) return undefined;
    if (!sameJson(normalizeWrite(update, DEFAULT_CHANNELS, newId), update)) return undefined;
    // The step waits what the recording waited since the previous step: the values between are sent with it.
    const delay = Math.max(0, Math.round(e.atMs - previousAt));
    previousAt = e.atMs;
    const short = shortUpdate(update);
    steps.push(delay > 0 ? { node, delay_ms: delay, update: short } : { node, update: short });
  }
  if (modes.has("values") && !valuesAsDerived(events, context, newId)) return undefined;
  return steps;
}

/** The `values` events are the derivation's: `values (updates values)*`, each the reducers' state. */
function valuesAsDerived(events: readonly TimedEvent[], context: StepsContext, newId: () => string): boolean {
  if (events.length % 2 === 0 || context.prior === undefined) return false;
  let expected = startState(context.prior, context.input, context.command, newId);
  if (expected === undefined || !isPlainObject(events[0]?.data) || !sameJson(adoptNewIds(expected, events[0].data), events[0].data)) return false;
  let state: Record<string, unknown> = events[0].data;
  for (let i = 1; i < events.length; i += 2) {
    const update = events[i] as TimedEvent;
    const values = events[i + 1] as TimedEvent;
    if (update.event !== "updates" || values.event !== "values" || !isPlainObject(values.data) || !isPlainObject(update.data)) return false;
    try {
      expected = applyWrites(state, Object.values(update.data), DEFAULT_CHANNELS, newId);
    } catch (err) {
      if (err instanceof ReducerError) return false;
      throw err;
    }
    if (!sameJson(expected, values.data)) return false;
    state = values.data;
  }
  return true;
}

/** The state the run's first node sees, as the mock computes it (runs.ts startState); undefined: not checked. */
function startState(prior: Record<string, unknown>, input: unknown, command: unknown, newId: () => string): Record<string, unknown> | undefined {
  try {
    if (command === undefined || command === null) return isPlainObject(input) ? applyWrites(prior, [input], DEFAULT_CHANNELS, newId) : prior;
    // A resume with nothing but `resume`: the state it resumes. Other commands (update, goto) are left as events.
    return isPlainObject(command) && Object.keys(command).every((k) => k === "resume") ? prior : undefined;
  } catch (err) {
    if (err instanceof ReducerError) return undefined;
    throw err;
  }
}

/**
 * The expected state with the ids the reducers gave the input's messages replaced by the recorded ones
 * at the same place: the replaying mock gives those messages its own ids, as the recorded server did.
 */
function adoptNewIds(expected: Record<string, unknown>, recorded: Record<string, unknown>): Record<string, unknown> {
  const mine = expected.messages;
  const theirs = recorded.messages;
  if (!Array.isArray(mine) || !Array.isArray(theirs)) return expected;
  const messages = mine.map((m: unknown, i) => {
    const other = theirs[i] as unknown;
    if (!isPlainObject(m) || typeof m.id !== "string" || !m.id.startsWith(NEW_ID) || !isPlainObject(other) || typeof other.id !== "string") return m;
    return { ...m, id: other.id };
  });
  return { ...expected, messages };
}

/**
 * The update with each message's fields that the mock's coercion fills in anyway left out
 * (`additional_kwargs: {}`, `tool_calls: []`, `name: null`…): the same stream on replay, a shorter file.
 */
function shortUpdate(update: unknown): unknown {
  if (!isPlainObject(update) || !Object.hasOwn(update, "messages")) return update;
  const messages = update.messages;
  const short = Array.isArray(messages) ? messages.map(shortMessage) : shortMessage(messages);
  const out = { ...update, messages: short };
  // Kept only when it comes back as recorded; key order included.
  return sameJson(normalizeWrite(out, DEFAULT_CHANNELS, () => NEW_ID), update) ? out : update;
}

function shortMessage(message: unknown): unknown {
  if (!isPlainObject(message)) return message;
  let out = message;
  for (const key of Object.keys(message)) {
    if (key === "type" || key === "id" || key === "content") continue;
    const candidate = omit(out, [key]);
    if (sameJson(toMessage(candidate, () => NEW_ID), message)) out = candidate;
  }
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
