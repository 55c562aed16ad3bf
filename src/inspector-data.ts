import { formatTimestamp } from "./core/clock.js";
import type { MockContext } from "./context.js";
import type { AgentServer } from "./agent-server/index.js";
import { deploymentsOf } from "./control-plane/deployments-service.js";
import { ControlError } from "./control-error.js";
import { timelineEntry } from "./live-changes.js";

/**
 * What the inspector reads besides MockControl (docs/inspector.md): a run's events on the mock's
 * clock, every deployment with its revisions, the options in force and the services' routes. It only
 * reads: the change feed it follows is wired by `createApp` (`wireLiveChanges`).
 */
export class InspectorData {
  constructor(
    private readonly ctx: MockContext,
    private readonly agent: AgentServer,
  ) {}

  /** A run's events with size, instant and offset from its creation; 404 for an unknown run. */
  runEvents(runId: string) {
    const run = this.ctx.data.runs.get(runId.toLowerCase());
    if (!run) throw new ControlError(404, `Run ${runId} not found`);
    const execution = this.agent.runs.execution(run.run_id);
    // A rolled-back run, or one whose thread was deleted, has no events left to show.
    const items = (execution?.frames ?? []).map((f) => timelineEntry(f, run.created_at));
    return { run_id: run.run_id, items, count: items.length, finished: execution ? execution.outcome !== undefined : true };
  }

  /** Every deployment of every tenant, newest first, with its revisions (newest first), caught up with the clock. */
  deployments() {
    const { store, lifecycle } = deploymentsOf(this.ctx);
    lifecycle.catchUp();
    const items = [...store.all()]
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? 1 : -1))
      .map((d) => ({
        id: d.id,
        name: d.name,
        tenant_id: d.tenant_id,
        source: d.source,
        status: d.status,
        created_at: formatTimestamp(d.created_at),
        updated_at: formatTimestamp(d.updated_at),
        latest_revision_id: d.latest_revision_id,
        active_revision_id: d.active_revision_id,
        in_flight_revision_id: lifecycle.inFlightRevision(d.id) ?? null,
        revisions: store.revisionsOf(d.id).map(({ revision: r }) => ({ id: r.id, status: r.status, created_at: formatTimestamp(r.created_at), updated_at: formatTimestamp(r.updated_at) })),
      }));
    return { items, count: items.length, lifecycle: this.ctx.lifecycle, lifecycle_step_ms: this.ctx.lifecycleStepMs };
  }

  /** The options in force. Secrets are never shown: only whether one is required. */
  options() {
    const ctx = this.ctx;
    const o = ctx.options;
    const sources = (list: unknown) => (list === false ? false : list === undefined ? null : (Array.isArray(list) ? list : [list]).map((x) => (typeof x === "string" ? x : "<object>")));
    return {
      seed: o.seed ?? null,
      clock: { mode: ctx.clock.mode, start: o.clock?.start ?? null, auto_advance: ctx.clock.autoAdvance },
      lifecycle: ctx.lifecycle,
      lifecycle_step_ms: ctx.lifecycleStepMs,
      heartbeat_ms: ctx.heartbeatMs,
      journal: { ...ctx.journal.options },
      body_limit: o.bodyLimit ?? "1mb",
      api_key_required: Boolean(o.apiKey),
      admin_token_required: Boolean(o.adminToken),
      public_url: o.publicUrl ?? null,
      tracing_url: o.tracingUrl ?? null,
      fixtures: sources(o.fixtures),
      scenarios: sources(o.scenarios),
    };
  }

  /** The services' routes (express syntax), not the admin API's own. */
  routes() {
    const items = this.ctx.routes.list().filter((r) => !r.path.startsWith("/_mock") && r.method !== "HEAD");
    return { items, count: items.length };
  }
}
