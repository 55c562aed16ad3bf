import type { MockContext } from "../context.js";
import { isPlainObject, setOwn } from "../core/json.js";
import { HttpError } from "../http/http-error.js";
import type { RequestScope } from "../http/route.js";
import type { ProtocolCommand, ProtocolError, ProtocolSuccess } from "../schemas/types.gen.js";
import { PROTOCOL_RUN_MODES, RunEventConverter } from "./protocol-events.js";
import type { ProtocolSession, ProtocolSessions } from "./protocol-session.js";
import type { MultitaskStrategy, RunCreateBody, RunService } from "./runs.js";
import { runScope } from "./runs-routes.js";
import { threadsIn } from "./threads.js";

type ErrorCode = ProtocolError["error"];
type Json = Record<string, unknown>;

const STRATEGIES: readonly string[] = ["reject", "rollback", "interrupt", "enqueue"];

/** What a command needs besides its envelope: the thread of the path and the request it came in on. */
export interface CommandScope {
  threadId: string;
  request: RequestScope;
  headers: Record<string, unknown>;
}

/**
 * `POST /threads/{thread_id}/commands`: one Protocol v2 command, answered with a ProtocolSuccess or a
 * ProtocolError (both 200). `run.start` and `input.respond` start a background run that plays the
 * matching scenario; its events go to the thread's session (`/stream/events`).
 */
export class ProtocolCommands {
  constructor(
    private readonly ctx: MockContext,
    private readonly runs: RunService,
    private readonly sessions: ProtocolSessions,
  ) {}

  handle(command: ProtocolCommand, scope: CommandScope): ProtocolSuccess | ProtocolError {
    const params: Json = isPlainObject(command.params) ? command.params : {};
    switch (command.method) {
      case "run.start":
        return this.runStart(command.id, params, scope);
      case "input.respond":
        return this.inputRespond(command.id, params, scope);
      case "agent.getTree": {
        const session = this.sessions.get(scope.threadId);
        if (!session?.currentRunId) return this.error(command.id, "no_such_run", "No active run is bound to this thread.", scope.threadId);
        return this.success(command.id, { tree: session.tree() }, scope.threadId);
      }
      case "subscription.subscribe":
      case "subscription.unsubscribe":
      case "subscription.reconnect":
        // [real: the document] subscriptions are in-band commands of the WebSocket transport only.
        return this.error(command.id, "not_supported", `${command.method} is only available over the WebSocket transport; over HTTP, each POST /threads/{thread_id}/stream/events connection is its own subscription.`, scope.threadId);
      default:
        return this.error(command.id, "unknown_command", `Unknown protocol command: ${command.method}`, scope.threadId);
    }
  }

  /** `run.start`: a new run, or — while the thread waits on an interrupt — a resume with the input as its value. */
  private runStart(id: number, params: Json, scope: CommandScope): ProtocolSuccess | ProtocolError {
    const assistantId = typeof params.assistant_id === "string" ? params.assistant_id : "";
    if (!assistantId) return this.error(id, "invalid_argument", "run.start requires an assistant_id.", scope.threadId);
    const session = this.sessions.of(scope.threadId);
    if (session.assistantId !== undefined && session.assistantId !== assistantId) {
      return this.error(id, "invalid_argument", `Thread ${scope.threadId} is bound to assistant ${session.assistantId}; cannot run ${assistantId}.`, scope.threadId);
    }
    const input = params.input;
    const resume = input !== undefined && input !== null && this.hasPendingInterrupts(scope.threadId);
    const started = this.start(session, scope, params, {
      assistant_id: assistantId,
      input: resume ? null : (input ?? null),
      ...(resume ? { command: { resume: input } } : {}),
      multitask_strategy: typeof params.multitaskStrategy === "string" && STRATEGIES.includes(params.multitaskStrategy) ? (params.multitaskStrategy as MultitaskStrategy) : "enqueue",
    });
    return "error" in started ? this.error(id, started.error, started.message, scope.threadId) : this.success(id, { run_id: started.runId }, scope.threadId);
  }

  /** `input.respond`: resumes the interrupted thread with `{interrupt_id: response}` (one, or a `responses` batch). */
  private inputRespond(id: number, params: Json, scope: CommandScope): ProtocolSuccess | ProtocolError {
    const resume: Json = {};
    if (Array.isArray(params.responses)) {
      for (const entry of params.responses) {
        if (!isPlainObject(entry) || typeof entry.interrupt_id !== "string") return this.error(id, "invalid_argument", "input.respond responses entries require an interrupt_id.", scope.threadId);
        setOwn(resume, entry.interrupt_id, entry.response);
      }
      if (!Object.keys(resume).length) return this.error(id, "invalid_argument", "input.respond requires at least one response.", scope.threadId);
    } else if (typeof params.interrupt_id === "string") {
      setOwn(resume, params.interrupt_id, params.response);
    } else {
      return this.error(id, "invalid_argument", "input.respond requires an interrupt_id.", scope.threadId);
    }
    const session = this.sessions.of(scope.threadId);
    const thread = threadsIn(this.ctx).get(scope.threadId);
    // The assistant of the thread's last protocol run; else the one its last run of any kind used.
    const assistantId = session.assistantId ?? (typeof thread?.metadata.assistant_id === "string" ? thread.metadata.assistant_id : undefined);
    if (assistantId === undefined) return this.error(id, "no_such_run", "Thread has no active assistant; call run.start first.", scope.threadId);
    const pending = this.hasPendingInterrupts(scope.threadId);
    if (!pending && session.currentRunId === undefined) return this.error(id, "no_such_run", "No interrupted run is bound to this thread.", scope.threadId);
    if (!pending) return this.error(id, "invalid_argument", "input.respond can only be used while the run is interrupted.", scope.threadId);
    const command: Json = { resume };
    if (isPlainObject(params.update) || Array.isArray(params.update)) command.update = params.update;
    if (typeof params.goto === "string" || Array.isArray(params.goto) || isPlainObject(params.goto)) command.goto = params.goto;
    const started = this.start(session, scope, params, { assistant_id: assistantId, input: null, command, multitask_strategy: "enqueue" });
    return "error" in started ? this.error(id, started.error, started.message, scope.threadId) : this.success(id, {}, scope.threadId);
  }

  private hasPendingInterrupts(threadId: string): boolean {
    const thread = threadsIn(this.ctx).get(threadId);
    return !!thread && Object.keys(thread.interrupts).length > 0;
  }

  /**
   * Creates the run as the JS server does (every protocol stream mode, subgraphs, resumable, the
   * thread created when missing, the command's `config` and `metadata`) and binds the session and its
   * assistant to it. A refusal (no scenario, a busy thread with `reject`, an unknown assistant) is an
   * `invalid_argument` with the server's text.
   */
  private start(
    session: ProtocolSession,
    scope: CommandScope,
    params: Json,
    run: { assistant_id: string; input: unknown; command?: Json; multitask_strategy: MultitaskStrategy },
  ): { runId: string } | { error: ErrorCode; message: string } {
    const config = isPlainObject(params.config) ? params.config : undefined;
    const configurable = isPlainObject(config?.configurable) ? config.configurable : {};
    const body = {
      assistant_id: run.assistant_id,
      input: run.input,
      ...(run.command ? { command: run.command } : {}),
      ...(config ? { config } : {}),
      ...(isPlainObject(params.metadata) ? { metadata: params.metadata } : {}),
      // A fork: the SDK folds its `forkFrom` option into `config.configurable.checkpoint_id`.
      ...(typeof configurable.checkpoint_id === "string" ? { checkpoint_id: configurable.checkpoint_id } : {}),
      stream_mode: PROTOCOL_RUN_MODES,
      stream_subgraphs: true,
      stream_resumable: true,
      multitask_strategy: run.multitask_strategy,
      if_not_exists: "create",
      on_disconnect: "continue",
      on_completion: "keep",
    } as unknown as RunCreateBody;
    let created;
    try {
      created = this.runs.create(body, runScope(scope.request, "background", scope.threadId, scope.headers));
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const detail = isPlainObject(err.body) && typeof err.body.detail === "string" ? err.body.detail : err.message;
      return { error: err.status >= 500 ? "unknown_error" : "invalid_argument", message: detail };
    }
    const { run: record, execution } = created;
    // The JS server binds one run session per thread: a new run replaces the previous one's feed.
    session.detachRun?.();
    session.startRun(record.run_id, record.graph_id);
    const converter = new RunEventConverter(session);
    converter.started();
    // Listeners run inside the run's playback: a conversion that failed must not end the run itself.
    const guarded = (convert: () => void) => {
      try {
        convert();
      } catch {
        // the event is left out of the protocol stream; the run and its other streams go on
      }
    };
    const stop = execution.subscribe({
      frame: (f) => guarded(() => converter.frame(f)),
      heartbeat: () => {},
      end: () => guarded(() => converter.end(execution.outcome)),
    });
    session.detachRun = stop;
    session.assistantId = run.assistant_id;
    return { runId: record.run_id };
  }

  private success(id: number, result: Json, threadId: string): ProtocolSuccess {
    return { type: "success", id, result, meta: this.meta(threadId) };
  }

  private error(id: number, error: ErrorCode, message: string, threadId: string): ProtocolError {
    return { type: "error", id, error, message, meta: this.meta(threadId) };
  }

  /** `applied_through_seq`: the session's last seq when the answer is made (0 before any event). */
  private meta(threadId: string) {
    return { thread_id: threadId, applied_through_seq: this.sessions.get(threadId)?.seq ?? 0 };
  }
}
