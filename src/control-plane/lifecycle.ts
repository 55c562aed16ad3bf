import type { MockContext } from "../context.js";
import type { Collection } from "../store/collection.js";
import { SOURCE_RULES } from "./deployments-rules.js";
import type { ConfigObject, DeploymentSource, DeploymentStore, Revision, RevisionStatus } from "./deployments-store.js";
import { declareCollection } from "../store/store.js";

/** Revision states of a source built by the platform (DESIGN §2). */
export const BUILD_PATH: readonly RevisionStatus[] = ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"];
/** Image sources skip the build states. */
export const IMAGE_PATH: readonly RevisionStatus[] = ["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"];

/** What a revision becomes when it fails at a step. */
export const FAILURE_AT: Partial<Record<RevisionStatus, RevisionStatus>> = {
  CREATING: "CREATE_FAILED",
  QUEUED: "CREATE_FAILED",
  AWAITING_BUILD: "BUILD_FAILED",
  BUILDING: "BUILD_FAILED",
  AWAITING_DEPLOY: "DEPLOY_FAILED",
  DEPLOYING: "DEPLOY_FAILED",
};

export function pathFor(source: DeploymentSource): readonly RevisionStatus[] {
  return SOURCE_RULES[source].builds ? BUILD_PATH : IMAGE_PATH;
}

export function isInFlight(status: RevisionStatus): boolean {
  return FAILURE_AT[status] !== undefined;
}

/** A revision on its way to DEPLOYED: at most one per deployment (a newer one interrupts it). */
export interface InFlight {
  deployment_id: string;
  revision_id: string;
  path: readonly RevisionStatus[];
  /** Index of the current status in `path`. */
  step: number;
  /** When the current step was entered (ms on the mock's clock). */
  since: number;
  fail_at: RevisionStatus | null;
}

/** A status a revision entered, and when (ms on the mock's clock). */
export interface Transition {
  status: RevisionStatus;
  at: number;
}

/** What `fail()` did with a scripted failure. */
export interface ScriptedFailure {
  applies_to: "in_flight" | "next";
  revision_id: string | null;
}

/**
 * Moves revisions through their states on the mock's clock (DESIGN §2, docs/decisions/lifecycle.md).
 * State changes are written as ordinary records when they happen — at the instant they happen — so
 * reads, filters and reset() see plain stored data:
 * - immediate: a new revision walks its whole path in the request that creates it;
 * - timed: each step lasts `lifecycleStepMs`; revisions are caught up with the clock before every
 *   deployments request and whenever the clock moves, each transition stamped with its own instant;
 * - manual: each move of the clock by a test (`advance` or `set`, not a stream delay's virtual-time
 *   jump) moves every in-flight revision one step; `advance()` moves one deployment's revision.
 * The in-flight set lives in the store, so reset() puts it back with everything else.
 */
export class Lifecycle {
  private readonly inFlight: Collection<InFlight>;
  /** Every status each revision entered while the mock ran, in order: build and deploy logs follow it. */
  private readonly history: Collection<readonly Transition[]>;

  constructor(
    private readonly ctx: MockContext,
    private readonly store: DeploymentStore,
  ) {
    this.inFlight = deploymentLifecyclesIn(ctx);
    this.history = revisionHistoryIn(ctx);
    ctx.clock.onChange((now, cause) => {
      if (ctx.lifecycle === "timed") this.catchUp();
      else if (ctx.lifecycle === "manual" && (cause === "advance" || cause === "set")) {
        for (const entry of [...this.inFlight.values()]) this.move(entry, 1, () => now);
      }
    });
  }

  /** Brings every in-flight revision up to the clock (timed mode; nothing to do in the others). */
  catchUp(): void {
    if (this.ctx.lifecycle !== "timed" || this.inFlight.size === 0) return;
    const now = this.ctx.clock.now();
    const stepMs = this.ctx.lifecycleStepMs;
    for (const entry of [...this.inFlight.values()]) {
      const steps = stepMs > 0 ? Math.floor((now - entry.since) / stepMs) : Infinity;
      this.move(entry, steps, (k) => entry.since + k * stepMs);
    }
  }

  /**
   * Adds a revision to a deployment and starts it: the revision still in flight is INTERRUPTED, the
   * deployment's `latest_revision_id` and `source_revision_config` follow the new one.
   */
  newRevision(deploymentId: string, source: DeploymentSource, config: ConfigObject): Revision {
    this.catchUp();
    const now = this.ctx.clock.now();
    this.interrupt(deploymentId, now);
    const revision: Revision = { id: this.ctx.random.uuid4(), created_at: now, updated_at: now, status: "CREATING", source, source_revision_config: config };
    const meta = this.store.metaOf(deploymentId);
    this.store.setMeta(deploymentId, { ...meta, fail_next_at: null }, [{ deployment_id: deploymentId, remote_reconciled: false, revision }, ...this.store.revisionsOf(deploymentId)]);
    this.history.set(revision.id, [{ status: "CREATING", at: now }]);
    const deployment = this.store.byId(deploymentId);
    if (deployment) this.store.update({ ...deployment, latest_revision_id: revision.id, source_revision_config: config, updated_at: now });
    this.resume(deploymentId, revision.id, source, "CREATING", meta.fail_next_at, now);
    return revision;
  }

  /**
   * Puts a revision in flight at `status` (entered at `since`). Fixtures use it for revisions they
   * list in flight; in immediate mode the revision settles at once.
   */
  resume(deploymentId: string, revisionId: string, source: DeploymentSource, status: RevisionStatus, failAt: RevisionStatus | null, since: number): void {
    const path = pathFor(source);
    const entry: InFlight = { deployment_id: deploymentId, revision_id: revisionId, path, step: Math.max(0, path.indexOf(status)), since, fail_at: failAt };
    this.inFlight.set(deploymentId, entry);
    if (!this.history.has(revisionId)) this.history.set(revisionId, [{ status: entry.path[entry.step] as RevisionStatus, at: since }]);
    if (this.ctx.lifecycle === "immediate") this.move(entry, Infinity, () => since);
  }

  /** Moves one deployment's in-flight revision (if any) `steps` steps now. */
  advance(deploymentId: string, steps: number): void {
    this.catchUp();
    const entry = this.inFlight.get(deploymentId);
    const now = this.ctx.clock.now();
    if (entry) this.move(entry, steps, () => now);
  }

  /**
   * Scripts a failure at step `at`: for the revision in flight when it has not passed that step yet,
   * else for the deployment's next revision.
   */
  fail(deploymentId: string, at: RevisionStatus): ScriptedFailure {
    this.catchUp();
    const entry = this.inFlight.get(deploymentId);
    if (entry && entry.path.indexOf(at) >= entry.step) {
      this.inFlight.set(deploymentId, { ...entry, fail_at: at });
      return { applies_to: "in_flight", revision_id: entry.revision_id };
    }
    this.store.setMeta(deploymentId, { ...this.store.metaOf(deploymentId), fail_next_at: at });
    return { applies_to: "next", revision_id: null };
  }

  /** The revision of a deployment still in flight, if any. */
  inFlightRevision(deploymentId: string): string | undefined {
    return this.inFlight.get(deploymentId)?.revision_id;
  }

  forget(deploymentId: string): void {
    this.inFlight.delete(deploymentId);
  }

  /** The statuses a revision entered while the mock ran (none for a revision that settled before it started). */
  historyOf(revisionId: string): readonly Transition[] {
    return this.history.get(revisionId) ?? [];
  }

  private interrupt(deploymentId: string, at: number): void {
    const entry = this.inFlight.get(deploymentId);
    if (!entry) return;
    this.inFlight.delete(deploymentId);
    this.settle(entry, "INTERRUPTED", at);
    this.recordHistory(entry.revision_id, [{ status: "INTERRUPTED", at }]);
  }

  /** Takes up to `steps` steps; `at(k)` is the instant of the k-th. Writes the outcome once. */
  private move(entry: InFlight, steps: number, at: (k: number) => number): void {
    if (!(steps > 0)) return;
    let step = entry.step;
    let status = entry.path[step] as RevisionStatus;
    let when = entry.since;
    let done = false;
    const entered: Transition[] = [];
    for (let k = 1; k <= steps && !done; k++) {
      when = at(k);
      const failure = entry.fail_at === status ? FAILURE_AT[status] : undefined;
      if (failure) {
        status = failure;
        done = true;
      } else {
        step += 1;
        status = entry.path[step] as RevisionStatus;
        done = status === "DEPLOYED";
      }
      entered.push({ status, at: when });
    }
    this.recordHistory(entry.revision_id, entered);
    if (done) this.inFlight.delete(entry.deployment_id);
    else this.inFlight.set(entry.deployment_id, { ...entry, step, since: when });
    this.settle(entry, status, when);
  }

  private recordHistory(revisionId: string, entered: readonly Transition[]): void {
    if (entered.length) this.history.set(revisionId, [...this.historyOf(revisionId), ...entered]);
  }

  /**
   * Writes a revision's new status and what follows for its deployment: the database is ready once
   * a revision has left its first step, and `active_revision_id` follows the revision that is DEPLOYED.
   */
  private settle(entry: InFlight, status: RevisionStatus, at: number): void {
    const current = this.store.revisionOf(entry.deployment_id, entry.revision_id);
    if (current) this.store.setRevision({ ...current, revision: { ...current.revision, status, updated_at: at } });
    const deployment = this.store.byId(entry.deployment_id);
    if (!deployment) return;
    const ready = deployment.status === "AWAITING_DATABASE" && status !== "INTERRUPTED" ? "READY" : deployment.status;
    const active = status === "DEPLOYED" ? entry.revision_id : deployment.active_revision_id;
    if (ready !== deployment.status || active !== deployment.active_revision_id) {
      this.store.update({ ...deployment, status: ready, active_revision_id: active, updated_at: at });
    }
  }
}

/** Revisions whose lifecycle is still moving on the mock's clock. */
export const deploymentLifecyclesIn = declareCollection<InFlight>("deployment_lifecycles");
/** Each revision's status transitions, by revision id (build and deploy logs). */
export const revisionHistoryIn = declareCollection<readonly Transition[]>("revision_history");
