import type { RequestLogEntry } from "../http/request-log.js";

export const LOG_LEVELS = ["silent", "error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Whether to colour: a TTY, unless NO_COLOR is set; FORCE_COLOR forces it (as most CLIs do). */
export function useColour(stream: NodeJS.WriteStream): boolean {
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== "0") return true;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

const paint = (code: number) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
const plain = (text: string) => text;

/**
 * The CLI's console: the start banner and problems at once, request lines batched. A request's line
 * is queued when its response has finished and written with the others of the same turn of the
 * event loop in one `write` (asynchronous on a pipe, which is how test runners and CI read it), so
 * no request waits on the console (docs/decisions/cli-console.md).
 */
export class ConsoleOutput {
  private queued: string[] = [];
  private scheduled = false;
  private readonly rank: number;
  readonly colour: boolean;

  constructor(
    level: LogLevel,
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly err: NodeJS.WriteStream = process.stderr,
  ) {
    this.rank = LOG_LEVELS.indexOf(level);
    this.colour = useColour(out);
  }

  enabled(level: Exclude<LogLevel, "silent">): boolean {
    return this.rank >= LOG_LEVELS.indexOf(level);
  }

  info(text: string): void {
    if (this.enabled("info")) this.out.write(`${text}\n`);
  }

  /** Problems go to stderr. */
  warn(text: string): void {
    if (this.enabled("warn")) this.err.write(`${text}\n`);
  }

  /** One line per finished request (info); /_mock requests only at debug. */
  request(entry: RequestLogEntry): void {
    if (!this.enabled(entry.admin ? "debug" : "info")) return;
    this.queued.push(formatRequest(entry, this.colour));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes what is queued (also called before exiting). */
  flush(): void {
    this.scheduled = false;
    if (!this.queued.length) return;
    const text = `${this.queued.join("\n")}\n`;
    this.queued = [];
    this.out.write(text);
  }
}

/** `GET /threads/…/runs/stream 200 12ms scenario=weather-answer`, coloured by status on a TTY. */
export function formatRequest(e: RequestLogEntry, colour: boolean): string {
  const c = colour
    ? { dim: paint(2), bold: paint(1), status: paint(e.status >= 500 ? 31 : e.status >= 400 ? 33 : e.status >= 300 ? 36 : 32) }
    : { dim: plain, bold: plain, status: plain };
  const ms = e.durationMs < 10 ? e.durationMs.toFixed(1) : String(Math.round(e.durationMs));
  const parts = [c.bold(e.method.padEnd(6)), e.path, c.status(String(e.status)), c.dim(`${ms}ms`)];
  if (e.scenario) parts.push(`scenario=${e.scenario}`);
  if (e.fault) parts.push(`fault=${e.fault.id} (${e.fault.kind})`);
  if (e.aborted) parts.push(c.dim("(client closed)"));
  return parts.join(" ");
}
