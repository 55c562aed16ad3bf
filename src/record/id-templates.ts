import { isPlainObject, setOwn } from "../core/json.js";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The ids of one recorded run that have a template of their own. */
export interface RunIds {
  runId: string | null;
  threadId: string | null;
  /** The run's assistant when it was named by UUID. */
  assistantId: string | null;
}

/**
 * Turns the UUIDs in recorded data into templates (docs/scenarios.md, "Templates"), so a replay carries
 * the replaying server's ids: the run's own id becomes `{{run_id}}`, its thread `{{thread_id}}`, its
 * assistant `{{assistant_id}}`, and every other UUID (message, checkpoint, task ids) `{{id.<kind>-<n>}}`.
 * One instance serves one scenario file: `id.<name>` is fixed per thread on replay, so the same message
 * id in turn 1 and turn 3 keeps one name and one value.
 */
export class IdTemplates {
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  apply(value: unknown, ids: RunIds, key = ""): unknown {
    if (typeof value === "string") return this.text(value, ids, key);
    if (Array.isArray(value)) return value.map((item) => this.apply(item, ids, key));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      // A message is an object with a `type`; its `id` names a message.
      const isMessage = typeof value.type === "string";
      for (const k of Object.keys(value)) setOwn(out, k, this.apply(value[k], ids, k === "id" && isMessage ? "message" : k));
      return out;
    }
    return value;
  }

  private text(value: string, ids: RunIds, key: string): string {
    // Text that already looks like a template would be read as one on replay; such strings are rare
    // in agent output and are left as recorded (validate names them if they are not valid templates).
    return value.replace(UUID, (found) => {
      const id = found.toLowerCase();
      if (id === ids.runId?.toLowerCase()) return "{{run_id}}";
      if (id === ids.threadId?.toLowerCase()) return "{{thread_id}}";
      if (id === ids.assistantId?.toLowerCase()) return "{{assistant_id}}";
      return `{{id.${this.name(id, key)}}}`;
    });
  }

  private name(id: string, key: string): string {
    let name = this.names.get(id);
    if (name === undefined) {
      const kind = /checkpoint/i.test(key) ? "checkpoint" : key === "message" ? "message" : key.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 30) || "uuid";
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      name = `${kind}-${n}`;
      this.names.set(id, name);
    }
    return name;
  }
}
