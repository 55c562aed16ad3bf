import type { MockContext } from "./context.js";
import { formatTimestamp } from "./core/clock.js";
import type { ServicePorts } from "./mock-control.js";

/**
 * Connects the mock's state to its change feed (`ctx.events`, served as `GET /_mock/events`): the
 * request journal and the clock here, and each service's own changes through its port (runs and their
 * events, scenarios, feedback, deployments). It is one subscriber of each (`waitFor` is another);
 * `createApp` calls it once. Every emit builds its payload only when someone is listening.
 */
export function wireLiveChanges(ctx: MockContext, services: ServicePorts): void {
  const bus = ctx.events;
  ctx.journal.subscribe((read) => bus.emit("request.journaled", read));
  ctx.clock.onChange((now, cause) => bus.emit("clock.moved", () => ({ now: formatTimestamp(now), cause })));
  services.agentServer.feedChanges(bus);
  services.tracing.feedChanges(bus);
  services.controlPlane.feedChanges(bus);
}
