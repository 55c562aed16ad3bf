import type { MockContext } from "../context.js";
import { runsIn } from "./runs.js";

/** The real server's default worker pool (`N_JOBS_PER_WORKER`): the mock plays every run at once, so this only shapes the figures. */
const WORKERS_MAX = 10;

/** Routes the real server leaves out of its HTTP metrics. */
const UNMETERED = new Set(["/ok", "/info", "/metrics", "/docs", "/openapi.json"]);

export interface MetricsLabels {
  project_id: string;
  revision_id: string;
}

/** One request count: method, route template (as the real server labels them) and status. */
export interface RequestCount {
  method: string;
  path: string;
  status: number;
  count: number;
}

/** What `GET /metrics` reports: the run queue, the workers and the HTTP request counts. */
export interface ServerMetrics {
  queue: { n_pending: number; n_running: number; pending_runs_wait_time_max_secs: number | null; pending_runs_wait_time_med_secs: number | null };
  workers: { max: number; active: number; available: number };
  requests: RequestCount[];
}

function median(sorted: readonly number[]): number | null {
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The figures of `GET /metrics`, from the mock's own state: runs by status (waits measured on the
 * mock's clock) and the request journal (so counts cover what the journal still holds, and `reset()`
 * clears them). `routePath` turns a journal entry's route name into its template.
 */
export function collectMetrics(ctx: MockContext, routePath: (name: string) => string | undefined): ServerMetrics {
  const runs = runsIn(ctx);
  const pending = runs.filter((r) => r.status === "pending");
  const running = runs.filter((r) => r.status === "running").length;
  const now = ctx.clock.now();
  const waits = pending.map((r) => (now - r.created_at) / 1000).sort((x, y) => x - y);
  const counts = new Map<string, RequestCount>();
  for (const entry of ctx.journal.list()) {
    const path = entry.route === null ? undefined : routePath(entry.route);
    if (path === undefined || UNMETERED.has(path)) continue;
    const key = `${entry.method} ${path} ${entry.status}`;
    const found = counts.get(key);
    counts.set(key, { method: entry.method, path, status: entry.status, count: (found?.count ?? 0) + 1 });
  }
  const active = Math.min(running, WORKERS_MAX);
  return {
    queue: { n_pending: pending.length, n_running: running, pending_runs_wait_time_max_secs: waits.at(-1) ?? null, pending_runs_wait_time_med_secs: median(waits) },
    workers: { max: WORKERS_MAX, active, available: WORKERS_MAX - active },
    requests: [...counts.values()],
  };
}

/** The JSON form (`?format=json`): `queue`, `api.http_requests_total` and `workers`, as the real server's. */
export function metricsJson(m: ServerMetrics) {
  return { queue: m.queue, api: { http_requests_total: m.requests }, workers: m.workers };
}

/** The Prometheus text form (the default), with the real server's metric names, help texts and labels. */
export function metricsPrometheus(m: ServerMetrics, labels: MetricsLabels): string {
  const base = `project_id="${labels.project_id}", revision_id="${labels.revision_id}"`;
  const gauge = (name: string, help: string, value: number) => [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${base}} ${value}`];
  const lines = [
    ...gauge("lg_api_num_pending_runs", "The number of runs currently pending.", m.queue.n_pending),
    ...gauge("lg_api_num_running_runs", "The number of runs currently running.", m.queue.n_running),
    ...gauge("lg_api_pending_runs_wait_time_max", "The maximum time a run has been pending, in seconds.", m.queue.pending_runs_wait_time_max_secs ?? 0),
    ...gauge("lg_api_pending_runs_wait_time_med", "The median pending wait time across runs, in seconds.", m.queue.pending_runs_wait_time_med_secs ?? 0),
    ...gauge("lg_api_workers_max", "The maximum number of workers available.", m.workers.max),
    ...gauge("lg_api_workers_active", "The number of currently active workers.", m.workers.active),
    ...gauge("lg_api_workers_available", "The number of available (idle) workers.", m.workers.available),
  ];
  if (m.requests.length) {
    lines.push("# HELP lg_api_http_requests_total Total number of HTTP requests.", "# TYPE lg_api_http_requests_total counter");
    for (const r of m.requests) lines.push(`lg_api_http_requests_total{${base}, method="${r.method}", path="${r.path}", status="${r.status}"} ${r.count}`);
  }
  return lines.join("\n");
}
