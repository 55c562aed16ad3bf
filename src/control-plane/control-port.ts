import type { MockContext } from "../context.js";
import type { DeploymentsOverview } from "../schemas/types.gen.js";
import { formatTimestamp } from "../core/clock.js";
import type { EventBus } from "../core/event-bus.js";
import { ControlError } from "../control-error.js";
import type { Deployments } from "./deployments-service.js";
import { deploymentsIn, type RevisionStatus } from "./deployments-store.js";
import { integrationsIn } from "./integrations-store.js";
import { pathFor } from "./lifecycle.js";
import { providersIn } from "./providers-store.js";

/** What MockControl, the change feed, the inspector and the tracing service may use of the control plane; app.ts wires it. */
export interface ControlPlaneControl {
  /** How many of each were loaded (the CLI's start banner). */
  counts(): { deployments: number; oauthProviders: number; integrations: number };
  /** Makes the deployment's next (or in-flight) revision fail when it reaches `at`. */
  failDeployment(deploymentId: string, at: RevisionStatus): { deployment_id: string; at: RevisionStatus } & Record<string, unknown>;
  /** Moves the deployment's in-flight revision on by `steps` lifecycle steps. */
  advanceDeployment(deploymentId: string, steps: number): { deployment_id: string; revision_id: string; status: string | undefined; in_flight: boolean };
  /** Every deployment of every tenant, newest first, with its revisions (newest first), caught up with the clock. */
  deployments(): DeploymentsOverview;
  /** The deployment's name (a traced run's project). */
  deploymentName(deploymentId: string): string | undefined;
  /** Reports each deployment and revision that changes on the change feed. */
  feedChanges(bus: EventBus): void;
}

export function controlPlaneControl(ctx: MockContext, { store, lifecycle }: Deployments): ControlPlaneControl {
  // The deployment the id names, caught up with the clock; ControlError 400/404 otherwise.
  const deployment = (id: string) => {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new ControlError(400, `deployment_id must be a UUID; got ${JSON.stringify(id)}`);
    lifecycle.catchUp();
    const found = store.byId(id.toLowerCase());
    if (!found) throw new ControlError(404, `Deployment ${id} not found`);
    return found;
  };
  return {
    counts: () => ({ deployments: deploymentsIn(ctx).size, oauthProviders: providersIn(ctx).size, integrations: integrationsIn(ctx).size }),
    failDeployment(deploymentId, at) {
      const d = deployment(deploymentId);
      if (!pathFor(d.source).includes(at)) {
        throw new ControlError(400, `A '${d.source}' revision never reaches ${at}: image sources skip the build states. Choose one of ${pathFor(d.source).slice(0, -1).join(", ")}.`);
      }
      return { deployment_id: d.id, at, ...lifecycle.fail(d.id, at) };
    },
    advanceDeployment(deploymentId, steps) {
      const d = deployment(deploymentId);
      const revisionId = lifecycle.inFlightRevision(d.id);
      if (!revisionId) {
        const latest = (d.latest_revision_id && store.revisionOf(d.id, d.latest_revision_id)?.revision.status) || "none";
        throw new ControlError(409, `Deployment ${d.id} has no revision in flight (its latest revision is ${latest}).`);
      }
      lifecycle.advance(d.id, steps);
      const revision = store.revisionOf(d.id, revisionId)?.revision;
      return { deployment_id: d.id, revision_id: revisionId, status: revision?.status, in_flight: lifecycle.inFlightRevision(d.id) === revisionId };
    },
    deployments() {
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
      return { items, count: items.length, lifecycle: ctx.lifecycle, lifecycle_step_ms: ctx.lifecycleStepMs };
    },
    deploymentName: (id) => store.byId(id)?.name,
    feedChanges(bus) {
      // A deployment is written with its metadata and revisions: each revision the write added or
      // replaced is a change, then the deployment if it is new or replaced. What a write replaced is
      // looked up (and a payload's closure made) only while someone follows the feed: a load writes
      // 100,000 deployments.
      deploymentsIn(ctx).subscribe((id, stored, previous) => {
        if (id === undefined || !bus.listening) return;
        if (!stored) return bus.emit("deployment.changed", () => ({ deployment_id: id, deleted: true }));
        const before = previous?.revisions;
        for (const entry of stored.revisions) {
          if (before?.includes(entry)) continue;
          bus.emit("deployment.changed", () => ({ deployment_id: entry.deployment_id, revision_id: entry.revision.id, status: entry.revision.status }));
        }
        if (stored.deployment !== previous?.deployment) bus.emit("deployment.changed", () => ({ deployment_id: id, deleted: false }));
      });
    },
  };
}
