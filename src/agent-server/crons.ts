import type { Cron } from "croner";
import { croner } from "../core/lazy-modules.js";
import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { isPlainObject } from "../core/json.js";
import { schemas } from "../schemas/registry.js";
import { agentErrors } from "./errors.js";
import { RUN } from "./route-schemas.js";
import type { RunCreateBody, RunService } from "./runs.js";
import { declareCollection } from "../store/store.js";
import { threadsIn } from "./threads.js";

/** A cron as the mock keeps it: the wire fields (times in ms) plus where its runs are said to come from. */
export interface CronRecord {
  cron_id: string;
  assistant_id: string;
  /** Null for a stateless cron: each run plays on a new thread. */
  thread_id: string | null;
  /** Stateless crons only: whether each run's new thread is deleted when the run ends. */
  on_run_completed: "delete" | "keep" | null;
  end_time: number | null;
  schedule: string;
  timezone: string | null;
  created_at: number;
  updated_at: number;
  /** The run each firing creates (the create body, assistant resolved, `configurable.cron_id` added). */
  payload: Record<string, unknown>;
  next_run_date: number | null;
  metadata: Record<string, unknown>;
  enabled: boolean;
  /** The deployment whose `custom_url` the cron was created on: its runs are recorded under it. */
  deployment_id: string | null;
  /** Where the feedback URLs of its runs point (`{tracing_url}` of the create request). */
  tracing_url: string;
}

/** The `Cron` wire form (schema agent-server/cron.json#/$defs/Cron). */
export function cronResponse(c: CronRecord) {
  return {
    cron_id: c.cron_id,
    assistant_id: c.assistant_id,
    thread_id: c.thread_id,
    on_run_completed: c.on_run_completed,
    end_time: c.end_time === null ? null : formatTimestamp(c.end_time),
    schedule: c.schedule,
    timezone: c.timezone,
    created_at: formatTimestamp(c.created_at),
    updated_at: formatTimestamp(c.updated_at),
    user_id: null,
    payload: c.payload,
    next_run_date: c.next_run_date === null ? null : formatTimestamp(c.next_run_date),
    metadata: c.metadata,
    enabled: c.enabled,
  };
}

/**
 * Checks a schedule and timezone as the real server does when a cron is created or patched: a
 * standard five-field schedule (croniter's `is_valid`; the `@daily`-style nicknames too) and an IANA
 * timezone. Throws the 422 answers.
 */
export function checkSchedule(schedule: string, timezone: string | null, now: number): void {
  if (timezone !== null) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    } catch {
      throw agentErrors.invalidTimezone(timezone);
    }
  }
  let cron: Cron;
  try {
    cron = parse(schedule, timezone);
  } catch {
    throw agentErrors.invalidCronSchedule(schedule);
  }
  try {
    // croner converts to the zone only when it computes a time: a zone Intl knows but croner cannot use fails here.
    cron.nextRun(new Date(now));
  } catch {
    throw agentErrors.invalidTimezone(timezone ?? "UTC");
  }
}

/** An `end_time` as ms; one that passed the schema's date-time format but no Date can read (a leap second) is a 422. */
export function parseEndTime(text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw agentErrors.invalidBody(`'${text}' is not a "date-time" (at /end_time)`);
  return ms;
}

/**
 * The first instant strictly after `after` that the schedule names (croniter's `get_next`), read in
 * the cron's timezone (UTC when none); null when it names none (e.g. `0 0 30 2 *`).
 */
export function nextRunDate(schedule: string, timezone: string | null, after: number): number | null {
  return parse(schedule, timezone).nextRun(new Date(after))?.getTime() ?? null;
}

/** A paused croner job (no timer of its own: the mock clock decides when a cron fires). */
function parse(schedule: string, timezone: string | null): Cron {
  // Five fields only: croner reads a sixth field as seconds first, croniter as seconds last, and the
  // real server's error asks for "minute hour day_of_month month day_of_week".
  return new (croner().Cron)(schedule.trim(), { paused: true, mode: "5-part", timezone: timezone ?? "UTC" });
}

/** How often the real server's scheduler looks for due crons (`cron_scheduler.py` `SLEEP_TIME`). */
const POLL_MS = 5000;

/**
 * Fires crons on the mock clock, as the real server's scheduler does on wall time: every enabled cron
 * whose `next_run_date` has come, and whose `end_time` has not passed, starts one background run
 * (exactly as `POST /threads/{id}/runs` or `POST /runs` with the cron's payload would) and its
 * `next_run_date` moves to the first scheduled time after now. A jump over several scheduled times
 * fires once, as the real scheduler does after a pause (docs/decisions/agent-server.md).
 *
 * When it looks: whenever a test moves the clock (`advance`, `set`); on a real-time clock (no seed)
 * also every 5 s while a cron exists, as the real scheduler polls. A virtual-time jump made by a
 * run's own delay does not fire crons: a cron whose runs last longer than its period would otherwise
 * drive virtual time forward for ever; what is due fires at the next move.
 */
export class CronScheduler {
  /** The real-clock poll in progress, stopped on reset and close. */
  private poll: AbortController | undefined;

  constructor(
    private readonly ctx: MockContext,
    private readonly runs: RunService,
  ) {
    const stopListening = ctx.clock.onChange((_now, cause) => {
      if (cause === "advance" || cause === "set") this.fireDue();
    });
    // Reset empties the crons collection (the store's restore); the poll has nothing left to do.
    ctx.onReset("store", () => this.stopPolling());
    ctx.onClose(() => {
      stopListening();
      this.stopPolling();
    });
  }

  /**
   * The crons still in force. A thread's crons go with it (the real table's `on delete cascade`):
   * dropped here when next looked at, so thread deletion needs no hook.
   */
  live(): CronRecord[] {
    const crons = cronsIn(this.ctx);
    const threads = threadsIn(this.ctx);
    for (const cron of crons.filter((c) => c.thread_id !== null && !threads.has(c.thread_id))) crons.delete(cron.cron_id);
    return [...crons.values()];
  }

  /** Called after a cron is created or changed: a real-time clock polls while crons exist. */
  changed(): void {
    if (this.ctx.clock.mode !== "real" || this.poll || cronsIn(this.ctx).size === 0) return;
    const poll = new AbortController();
    this.poll = poll;
    void this.pollLoop(poll.signal);
  }

  private async pollLoop(signal: AbortSignal): Promise<void> {
    try {
      while (cronsIn(this.ctx).size > 0) {
        await this.ctx.clock.sleep(POLL_MS, signal);
        this.fireDue();
      }
    } catch {
      // Aborted by reset or close.
    }
    if (this.poll?.signal === signal) this.poll = undefined;
  }

  private stopPolling(): void {
    this.poll?.abort();
    this.poll = undefined;
  }

  /** Starts one run for each due cron, in the order they fell due. */
  fireDue(): void {
    const now = this.ctx.clock.now();
    const due = this.live()
      .filter((c) => c.enabled && c.next_run_date !== null && c.next_run_date <= now && (c.end_time === null || c.end_time >= now))
      .sort((a, b) => (a.next_run_date as number) - (b.next_run_date as number) || a.created_at - b.created_at || a.cron_id.localeCompare(b.cron_id));
    const crons = cronsIn(this.ctx);
    for (const cron of due) {
      // Moved on first, as the real scheduler does whether or not the run could start.
      crons.set(cron.cron_id, { ...cron, next_run_date: safeNextRunDate(cron, now) });
      this.startRun(cron);
    }
  }

  /**
   * The run of one firing, through the same path as a client's background run (scenario matching,
   * multitask strategy, kwargs). A run the server refuses (no scenario matches, the thread is busy
   * with `reject`) is skipped: the real scheduler logs it and goes on.
   */
  private startRun(cron: CronRecord): void {
    const body = runBody(cron);
    if (!body) return;
    try {
      this.runs.create(body, {
        threadId: cron.thread_id,
        kind: "background",
        deploymentId: cron.deployment_id,
        route: `CRON ${cron.cron_id}`,
        request: `cron ${cron.cron_id} (schedule '${cron.schedule}')`,
        tracingUrl: cron.tracing_url,
        sentBody: cron.payload,
        // The real scheduler creates the run with no request headers.
        headers: {},
        note: () => {},
      });
    } catch {
      // Refused: see above. Nothing here may throw: this runs inside the clock's move.
    }
  }
}

/** The next run date after a firing; none (the cron stops) if the schedule cannot say: nothing here may throw. */
function safeNextRunDate(cron: CronRecord, now: number): number | null {
  try {
    return nextRunDate(cron.schedule, cron.timezone, now);
  } catch {
    return null;
  }
}

/**
 * The run-create body of a firing: the cron's payload read as `RunCreate` (defaults filled). A
 * stateless cron with `on_run_completed: "keep"` keeps its run's thread unless the payload says
 * otherwise (`cron_scheduler.py`: `setdefault("on_completion", "keep")`).
 */
function runBody(cron: CronRecord): RunCreateBody | undefined {
  const body = structuredClone(cron.payload);
  if (cron.on_run_completed === "keep" && !Object.hasOwn(body, "on_completion")) body.on_completion = "keep";
  const problems = schemas().checkRequest(`${RUN}RunCreate`, body);
  return problems.length === 0 && isPlainObject(body) ? (body as RunCreateBody) : undefined;
}

export const cronsIn = declareCollection<CronRecord>("crons");
