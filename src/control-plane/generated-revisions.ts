import { drawUuidWords, uuidText } from "../core/fast-uuid.js";
import type { Random } from "../core/random.js";
import type { ConfigObject, Deployment, DeploymentSource, RevisionEntry, RevisionStatus } from "./deployments-store.js";

/** The statuses a generated revision can have, by code (the table keeps one byte per revision). */
const STATUSES: readonly RevisionStatus[] = ["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "INTERRUPTED", "SKIPPED"];
/** A deployment has up to three generated revisions, the oldest created with it and each next one an hour later. */
const SLOTS = 3;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** An older revision's configuration: the newest one's with `value` as the field it was built from. */
export type OlderConfig = (source: DeploymentSource, newest: ConfigObject, value: unknown) => ConfigObject;

/**
 * The revisions of one generated set, kept as numbers in typed arrays instead of objects: per record
 * the revision count, each revision's status and minutes from creation to its last update, the older
 * ones' ids (a UUID's four words) and the values they were built from. A revision is ~6 heap
 * objects (entry, record, two boxed timestamps, id, configuration); a load of 100,000 deployments
 * made ~200,000 of them that few requests read: ~40 % of the objects the load's garbage collections
 * copied. `entries` builds a record's revisions — the objects generation used to
 * build — when something reads them. The rest follows from the deployment as generated: its id,
 * source, `created_at` (the oldest revision's; each next one an hour later), `latest_revision_id`
 * (the newest's id) and `source_revision_config` (the newest's configuration); so the store builds
 * them before it stores another version of the deployment (DeploymentStore).
 */
export class GeneratedRevisions {
  private readonly counts: Uint8Array;
  /** Per record, SLOTS slots newest first. */
  private readonly statuses: Uint8Array;
  private readonly minutes: Uint8Array;
  /** Per record, the ids of slots 1 and 2 as four 32-bit words each (drawUuidWords). */
  private readonly ids: Uint32Array;
  /** Per record, what slots 1 and 2 were built from (pooled strings, shared); two per record, pushed in record order. */
  private readonly artifacts: unknown[] = [];

  constructor(
    capacity: number,
    private readonly olderConfig: OlderConfig,
  ) {
    this.counts = new Uint8Array(capacity);
    this.statuses = new Uint8Array(capacity * SLOTS);
    this.minutes = new Uint8Array(capacity * SLOTS);
    this.ids = new Uint32Array(capacity * (SLOTS - 1) * 4);
  }

  /** Record `row` (the next one) has `count` revisions; `revision` then fills its slots. */
  start(row: number, count: number): void {
    this.counts[row] = count;
    this.artifacts.push(undefined, undefined);
  }

  /** Slot `slot` (0 = newest) of record `row`; an older slot's id is drawn here, in the generator's sequence. */
  revision(row: number, slot: number, status: RevisionStatus, artifact: unknown, random: Random): void {
    this.statuses[row * SLOTS + slot] = STATUSES.indexOf(status);
    if (slot === 0) return;
    this.artifacts[row * 2 + slot - 1] = artifact;
    drawUuidWords(random, this.ids, (row * 2 + slot - 1) * 4);
  }

  /** A slot's minutes from creation to its last update (drawn after its id); its `updated_at`. */
  updated(row: number, slot: number, created: number, minutes: number): number {
    this.minutes[row * SLOTS + slot] = minutes;
    return created + minutes * MINUTE_MS;
  }

  /** Slot 1 or 2's id (a DEPLOYED older revision is its deployment's `active_revision_id`). */
  id(row: number, slot: number): string {
    return uuidText(this.ids, (row * 2 + slot - 1) * 4);
  }

  /** When a slot was created: an hour per slot after the deployment, the oldest at its creation. */
  static created(deploymentCreated: number, count: number, slot: number): number {
    return deploymentCreated + (count - 1 - slot) * HOUR_MS;
  }

  /** Record `row`'s revisions, newest first, built from the table and its deployment as generated. */
  entries(row: number, deployment: Deployment): RevisionEntry[] {
    const count = this.counts[row] as number;
    const out: RevisionEntry[] = [];
    for (let slot = 0; slot < count; slot++) {
      const created = GeneratedRevisions.created(deployment.created_at, count, slot);
      const newest = slot === 0;
      out.push({
        deployment_id: deployment.id,
        remote_reconciled: false,
        revision: {
          id: newest ? (deployment.latest_revision_id as string) : this.id(row, slot),
          created_at: created,
          updated_at: created + (this.minutes[row * SLOTS + slot] as number) * MINUTE_MS,
          status: STATUSES[this.statuses[row * SLOTS + slot] as number] as RevisionStatus,
          source: deployment.source,
          source_revision_config: newest ? deployment.source_revision_config : this.olderConfig(deployment.source, deployment.source_revision_config, this.artifacts[row * 2 + slot - 1]),
        },
      });
    }
    return out;
  }
}
