import type { LogEntry, LogsRequest as LogsRequestInput } from "../schemas/types.gen.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import type { ConfigObject, Revision, RevisionStatus } from "./deployments-store.js";
import { FAILURE_AT, pathFor, type Transition } from "./lifecycle.js";

/** One line of a build or deploy log. */
export type LogLine = LogEntry;
type LogLevel = LogEntry["level"];

/** Lines written while a step runs are this far apart, so a poll during a long step sees them arrive. */
const LINE_GAP_MS = 1000;

/**
 * The statuses a revision went through: what the lifecycle recorded while the mock ran, else (a
 * revision that settled before the mock started) its path up to its status, spread evenly between
 * `created_at` and `updated_at`.
 */
export function transitionsOf(revision: Revision, recorded: readonly Transition[]): readonly Transition[] {
  if (recorded.length) return recorded;
  const start = revision.created_at;
  const end = revision.updated_at;
  const path = pathFor(revision.source);
  let statuses: RevisionStatus[];
  if (path.includes(revision.status)) statuses = path.slice(0, path.indexOf(revision.status) + 1);
  else {
    // A failure happens at the last step that fails that way (BUILD_FAILED: BUILDING or AWAITING_BUILD).
    const failedAt = [...path].reverse().find((step) => FAILURE_AT[step] === revision.status);
    statuses = failedAt ? [...path.slice(0, path.indexOf(failedAt) + 1), revision.status] : ["CREATING", revision.status];
  }
  const span = statuses.length > 1 ? (end - start) / (statuses.length - 1) : 0;
  return statuses.map((status, k) => ({ status, at: Math.round(start + k * span) }));
}

/**
 * The build log of a revision, as of `now`: written as the revision enters each build state on the
 * mock's clock, ending with the failure for a failed build. Sources that do not build (images) have
 * none.
 */
export function buildLog(revision: Revision, transitions: readonly Transition[], sourceConfig: ConfigObject, now: number): LogLine[] {
  if (!SOURCE_RULES[revision.source].builds) return [];
  const config = revision.source_revision_config;
  const writer = new LogWriter(`${revision.id}-build`);
  eachStep(transitions, (status, at, until) => {
    if (status === "AWAITING_BUILD") writer.at(at, "INFO", `Build of revision ${revision.id} queued`);
    else if (status === "BUILDING") {
      const lines = [
        revision.source === "github"
          ? `Cloning ${String(sourceConfig.repo_url)} at ${String(config.repo_ref)} (${String(config.repo_commit_sha)})`
          : `Fetching source ${String(config.source_tarball_path)}`,
        `Reading ${String(config.langgraph_config_path)}`,
        "Pulling base image langchain/langgraph-api",
        typeof sourceConfig.install_command === "string" ? `Running install command: ${sourceConfig.install_command}` : "Installing dependencies",
        ...(typeof sourceConfig.build_command === "string" ? [`Running build command: ${sourceConfig.build_command}`] : []),
        "Building image",
      ];
      lines.forEach((line, k) => writer.at(Math.min(at + k * LINE_GAP_MS, until), "INFO", line));
    } else if (status === "AWAITING_DEPLOY") writer.at(at, "INFO", "Build completed; image pushed");
    else if (status === "BUILD_FAILED") writer.at(at, "ERROR", "Build failed: the image build exited with code 1");
    else if (status === "INTERRUPTED" && writer.lines.length && !writer.done) writer.at(at, "WARNING", "Build interrupted by a newer revision");
    if (status === "AWAITING_DEPLOY") writer.done = true;
  });
  return writer.lines.filter((line) => line.timestamp <= now);
}

/**
 * The deploy log of a revision, as of `now`: the agent server's start as the revision deploys, ending
 * with the failure for a failed deploy.
 */
export function deployLog(revision: Revision, transitions: readonly Transition[], now: number): LogLine[] {
  const writer = new LogWriter(`${revision.id}-deploy`);
  eachStep(transitions, (status, at, until) => {
    if (status === "DEPLOYING") {
      const lines = [
        `Deploying revision ${revision.id}`,
        ...(typeof revision.source_revision_config.image_uri === "string" ? [`Pulling image ${revision.source_revision_config.image_uri}`] : []),
        "Starting agent server",
      ];
      lines.forEach((line, k) => writer.at(Math.min(at + k * LINE_GAP_MS, until), "INFO", line));
    } else if (status === "DEPLOYED") {
      writer.at(at, "INFO", "Application startup complete.");
      writer.at(at, "INFO", `Revision ${revision.id} is live`);
    } else if (status === "DEPLOY_FAILED") writer.at(at, "ERROR", "Deploy failed: the agent server did not become healthy");
    else if (status === "INTERRUPTED" && writer.lines.length) writer.at(at, "WARNING", "Deploy interrupted by a newer revision");
  });
  return writer.lines.filter((line) => line.timestamp <= now);
}

/** Calls `visit` for each status with when it was entered and when it was left (Infinity: not yet). */
function eachStep(transitions: readonly Transition[], visit: (status: RevisionStatus, at: number, until: number) => void): void {
  transitions.forEach((t, k) => visit(t.status, t.at, transitions[k + 1]?.at ?? Infinity));
}

/** Numbers lines in the order they are written; ids are stable, so a follower can de-duplicate. */
class LogWriter {
  readonly lines: LogLine[] = [];
  done = false;

  constructor(private readonly prefix: string) {}

  at(timestamp: number, level: LogLevel, message: string): void {
    this.lines.push({ id: `${this.prefix}-${String(this.lines.length + 1).padStart(4, "0")}`, timestamp, level, message });
  }
}

/** What a logs request selects, after validation: defaults filled in. */
export type LogsRequest = LogsRequestInput & { order: "asc" | "desc"; limit: number };

/**
 * One page of lines: filtered (level, text, time window), ordered by time, from `offset`. The next
 * offset is always given — at the end it names the end — because the CLI keeps polling a running
 * build's log with it and must see only the lines that appeared since.
 */
export function logsPage(lines: readonly LogLine[], selection: LogsRequest): { logs: LogLine[]; next_offset: string } {
  const level = selection.level?.toUpperCase();
  const needle = selection.query?.toLowerCase();
  const from = selection.start_time ? Date.parse(selection.start_time) : -Infinity;
  const to = selection.end_time ? Date.parse(selection.end_time) : Infinity;
  const selected = lines
    .map((line, k) => ({ line, k }))
    .filter(({ line }) => (!level || line.level === level) && (!needle || line.message.toLowerCase().includes(needle)) && line.timestamp >= from && line.timestamp < to)
    // Stable on the order the lines were written, for lines of the same instant.
    .sort((a, b) => a.line.timestamp - b.line.timestamp || a.k - b.k)
    .map(({ line }) => line);
  if (selection.order === "desc") selected.reverse();
  const offset = selection.offset ? Number(selection.offset) : 0;
  const logs = selected.slice(offset, offset + selection.limit);
  return { logs, next_offset: String(offset + logs.length) };
}
