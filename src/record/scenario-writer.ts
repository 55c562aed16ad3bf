import { mkdir, writeFile } from "node:fs/promises";
import { defaultAssistantId } from "../agent-server/assistants.js";
import { basename, join } from "node:path";
import { dump } from "js-yaml";
import { isPlainObject, omit } from "../core/json.js";
import { isUuid } from "../core/random.js";
import { IdTemplates, type RunIds } from "./id-templates.js";
import type { Redactor } from "./redaction.js";
import type { RecordedEvent } from "./sse-transcript.js";
import { emptyState, DEFAULT_CHANNELS } from "../agent-server/reducers.js";
import { stepsOf, type RecordedStep, type TimedEvent } from "./steps-form.js";

/** Event names a scenario can hold (the schema's ScenarioEvent pattern); `metadata`, `feedback`, `error` are the server's own. */
const STREAM_MODE_EVENT = /^(values|updates|messages|messages\/partial|messages\/complete|messages\/metadata|custom|events|debug|tasks|checkpoints)(\|[^|\r\n]+)*$/;

/** One run as the proxy saw it, from request to end. */
export interface RecordedRun {
  /** stream: an SSE answer; wait: the final values as JSON; background: created, its events read from a join. */
  kind: "stream" | "wait" | "background";
  threadId: string | null;
  runId: string | null;
  /** The run request's JSON body. */
  request: Record<string, unknown>;
  status: number;
  events: RecordedEvent[];
  /** The JSON answer: a refusal's body, or the final values of wait and join. */
  body?: unknown;
  /** The upstream cut the stream (no clean end of the chunked body). */
  cut: boolean;
  /** The node an interrupted run stopped at, read from the thread's state after the run. */
  interruptNode?: string;
}

type Ending = "success" | "disconnect" | { error: { error: string; message: string } } | { interrupt: { value: unknown; node?: string } } | { http: { status: number; detail?: unknown } };
/** A turn as written: `steps` when they replay as recorded (steps-form.ts), else the events. */
interface Turn {
  events?: { event: string; data: unknown; delay_ms?: number }[];
  steps?: RecordedStep[];
  end: Ending;
}
interface Recording {
  name: string;
  file: string;
  scenario: Record<string, unknown>;
  turns: Turn[];
  ids: IdTemplates;
  /** The thread's state after its last recorded run (its last root `values`), when the stream showed it. */
  state: Record<string, unknown> | undefined;
}

export interface ScenarioWriterOptions {
  out: string;
  format: "yaml" | "json";
  redactor: Redactor;
  /** The recorded server, as named in each file's header (no credentials). */
  source: string;
}

/**
 * Writes recorded runs as scenario files (docs/scenarios.md): one file per thread, its runs as turns,
 * rewritten after every run so a file is on disk as soon as its run ends; one file per stateless run.
 */
export class ScenarioWriter {
  private readonly threads = new Map<string, Recording>();
  private count = 0;
  private writes: Promise<unknown> = Promise.resolve();
  readonly files: string[] = [];

  constructor(private readonly options: ScenarioWriterOptions) {}

  /** Adds a finished run and (re)writes its file; resolves with the file's path once written. */
  add(run: RecordedRun): Promise<string> {
    const existing = run.threadId === null ? undefined : this.threads.get(run.threadId);
    const recording = existing ?? this.start(run);
    const assistant = typeof run.request.assistant_id === "string" ? run.request.assistant_id : "";
    // A run named by its graph plays on the graph's default assistant, whose id both servers derive from the graph's name.
    const ids: RunIds = { runId: run.runId, threadId: run.threadId, assistantId: isUuid(assistant) ? assistant : assistant ? defaultAssistantId(assistant) : null };
    recording.turns.push(this.turn(run, recording, ids));
    const write = this.write(recording);
    this.writes = this.writes.then(() => write, () => write);
    return write;
  }

  /** Resolves when every file write started so far has finished. */
  async settled(): Promise<void> {
    await this.writes;
  }

  private start(run: RecordedRun): Recording {
    this.count += 1;
    // Named from the message the client sent, redacted first: a key quoted in it never reaches the name.
    const text = lastUserText(run.request.input);
    const slug = slugOf(text === undefined ? undefined : this.options.redactor.text(text)) || (run.threadId ? "thread" : "stateless");
    const name = `rec-${String(this.count).padStart(3, "0")}-${slug}`;
    const file = join(this.options.out, `${name}.${this.options.format === "json" ? "json" : "yaml"}`);
    const scenario: Record<string, unknown> = {
      name,
      description: `Recorded from ${this.options.redactor.text(this.options.source)}${run.threadId ? "" : " (stateless run)"}.`,
      // Each recorded run answers once, so a session that sent the same input twice replays both answers in order.
      once: true,
    };
    const match = this.match(run);
    if (match) scenario.match = match;
    // A thread the recording has not seen a run on yet is taken as new; the first `values` checks it.
    const recording: Recording = { name, file, scenario, turns: [], ids: new IdTemplates(), state: emptyState(DEFAULT_CHANNELS) };
    if (run.threadId !== null) this.threads.set(run.threadId, recording);
    this.files.push(file);
    return recording;
  }

  /** Match on the assistant and on the last user message's text (or the whole input when it has no messages). */
  private match(run: RecordedRun): Record<string, unknown> | undefined {
    const match: Record<string, unknown> = {};
    if (typeof run.request.assistant_id === "string") match.assistant_id = this.options.redactor.text(run.request.assistant_id);
    const input = run.request.input;
    const messages = isPlainObject(input) && Array.isArray(input.messages) ? input.messages : undefined;
    const text = lastUserText(input);
    if (messages && text !== undefined) {
      const index = lastUserIndex(messages);
      // List patterns match by position: `{}` stands for any message before the one matched.
      match.input = { messages: [...Array.from({ length: index }, () => ({})), { content: { $contains: this.options.redactor.text(text) } }] };
    } else if (isPlainObject(input) && Object.keys(input).length > 0 && !messages) {
      match.input = this.options.redactor.json(input);
    }
    return Object.keys(match).length ? match : undefined;
  }

  private turn(run: RecordedRun, recording: Recording, ids: RunIds): Turn {
    const clean = (value: unknown) => recording.ids.apply(this.options.redactor.json(value), ids);
    if (run.status >= 400) {
      const detail = isPlainObject(run.body) ? run.body.detail : undefined;
      return { events: [], end: { http: detail === undefined ? { status: run.status } : { status: run.status, detail: clean(detail) } } };
    }
    // The ending is built once the events are templated: ids are named in the order the file holds them.
    let ending: () => Ending = () => (run.cut ? "disconnect" : "success");
    // Redacted, not yet templated: the thread's state is compared across turns, whose templates differ.
    const kept: (TimedEvent & { delay: number })[] = [];
    let previousAt = 0;
    const recorded = [...run.events];
    // wait and join answer with the final values only: they become the turn's one `values` event.
    if (run.kind !== "stream" && run.body !== undefined && recorded.length === 0) recorded.push({ event: "values", data: run.body, atMs: 0 });
    for (const item of recorded) {
      const delay = Math.max(0, Math.round(item.atMs - previousAt));
      previousAt = item.atMs;
      if (item.event === "error" && isPlainObject(item.data)) {
        const data = item.data;
        ending = () => ({ error: { error: this.options.redactor.text(String(data.error ?? "Error")), message: String(clean(data.message ?? "")) } });
        continue;
      }
      if (!STREAM_MODE_EVENT.test(item.event)) continue; // metadata, feedback, end: the replaying server sends its own
      // A namespaced name (`updates|<ns>`) is the server's text too.
      const event = this.options.redactor.text(item.event);
      const interrupt = interruptOf(item.data);
      if (interrupt !== undefined) {
        // The replaying server re-creates this event from the ending (as updates or values, as the request asks).
        ending = () => ({ interrupt: run.interruptNode ? { value: clean(interrupt), node: this.options.redactor.text(run.interruptNode) } : { value: clean(interrupt) } });
        const rest = omit(item.data as Record<string, unknown>, ["__interrupt__"]);
        if (item.event !== "values" || Object.keys(rest).length === 0) continue;
        kept.push({ event, data: this.options.redactor.json(rest), atMs: item.atMs, delay });
        continue;
      }
      if (isPlainObject(item.data) && "__error__" in item.data) {
        const error = item.data.__error__;
        ending = () => ({ error: { error: isPlainObject(error) ? this.options.redactor.text(String(error.error ?? "Error")) : "Error", message: isPlainObject(error) ? String(clean(error.message ?? "")) : String(clean(error)) } });
        continue;
      }
      kept.push({ event, data: this.options.redactor.json(item.data), atMs: item.atMs, delay });
    }
    const prior = recording.state;
    const lastValues = kept.findLast((e) => e.event === "values" && isPlainObject(e.data));
    recording.state = lastValues ? (lastValues.data as Record<string, unknown>) : undefined;
    const request = this.options.redactor.json({ input: run.request.input, command: run.request.command }) as Record<string, unknown>;
    const steps = stepsOf(kept, { modes: modesOf(run.request.stream_mode), prior, input: request.input, command: request.command });
    const template = (value: unknown) => recording.ids.apply(value, ids);
    if (steps) {
      const templated = steps.map((step) => ({ ...step, update: template(step.update) }));
      return { steps: templated, end: ending() };
    }
    const events = kept.map((e) => withDelay({ event: e.event, data: template(e.data) }, e.delay));
    return { events, end: ending() };
  }

  private async write(recording: Recording): Promise<string> {
    const { turns } = recording;
    const body: Record<string, unknown> = { ...recording.scenario };
    if (turns.length === 1) Object.assign(body, turns[0]);
    else body.turns = turns;
    await mkdir(this.options.out, { recursive: true });
    const text =
      this.options.format === "json"
        ? `${JSON.stringify(body, null, 2)}\n`
        : `# Recorded by agent-platform-mock record (docs/recording.md): edit freely, then check with\n# agent-platform-mock validate ${basename(recording.file)}\n${dump(body, { noRefs: true, lineWidth: 120, quoteStyle: "double" })}`;
    await writeFile(recording.file, text);
    return recording.file;
  }
}

/** The run's stream modes as created (the server's default is `values`). */
function modesOf(streamMode: unknown): ReadonlySet<string> {
  if (streamMode === undefined || streamMode === null) return new Set(["values"]);
  return new Set((Array.isArray(streamMode) ? streamMode : [streamMode]).filter((m): m is string => typeof m === "string"));
}

function withDelay(event: { event: string; data: unknown }, delay: number): NonNullable<Turn["events"]>[number] {
  // delay_ms before data: it reads as "wait, then send".
  return delay > 0 ? { event: event.event, delay_ms: delay, data: event.data } : event;
}

/** The value of an `__interrupt__` chunk (`{"__interrupt__": [{value, id}]}`), or undefined. */
function interruptOf(data: unknown): unknown {
  if (!isPlainObject(data) || !Array.isArray(data.__interrupt__)) return undefined;
  const first = data.__interrupt__[0] as unknown;
  return isPlainObject(first) && "value" in first ? first.value : null;
}

function lastUserIndex(messages: unknown[]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (isPlainObject(m) && (m.role === "user" || m.role === "human" || m.type === "human")) return i;
  }
  return messages.length - 1;
}

function lastUserText(input: unknown): string | undefined {
  if (!isPlainObject(input) || !Array.isArray(input.messages) || input.messages.length === 0) return undefined;
  const message = input.messages[lastUserIndex(input.messages)];
  return isPlainObject(message) && typeof message.content === "string" ? message.content : undefined;
}

function slugOf(text: string | undefined): string {
  return (text ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "");
}
