import type { MockContext } from "./context.js";
import { ControlError } from "./control-error.js";
import type { ServicePorts } from "./mock-control.js";

/**
 * What the inspector reads besides MockControl (docs/inspector.md): a run's events on the mock's
 * clock, every deployment with its revisions, the options in force and the services' routes. It only
 * reads: the change feed it follows is wired by `createApp` (`wireLiveChanges`).
 */
export class InspectorData {
  constructor(
    private readonly ctx: MockContext,
    private readonly services: Pick<ServicePorts, "agentServer" | "controlPlane">,
  ) {}

  /** A run's events with size, instant and offset from its creation; 404 for an unknown run. */
  runEvents(runId: string) {
    const events = this.services.agentServer.runEvents(runId);
    if (!events) throw new ControlError(404, `Run ${runId} not found`);
    return events;
  }

  /** Every deployment of every tenant, newest first, with its revisions (newest first), caught up with the clock. */
  deployments() {
    return this.services.controlPlane.deployments();
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
