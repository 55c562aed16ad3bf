import type { MockContext } from "../context.js";
import type { ValidationIssue } from "../http/http-error.js";
import { route, type RouteSpec } from "../http/route.js";
import { readPart } from "../http/request-input.js";
import { fastApiInvalid } from "../http/pydantic-issues.js";
import { setOwn } from "../core/json.js";
import { isUuid } from "../core/random.js";
import { MAX_DEPTH, jsonTextDepth } from "../core/shape-limits.js";
import type { FeedbackCreate, TraceRunBatch, TraceRunCreate, TraceRunQuery, TraceRunUpdate } from "../schemas/types.gen.js";
import { feedbackIn, recordApiFeedback } from "./feedback-records.js";
import { tracingErrors } from "./errors.js";
import { boundaryOf, parseMultipart, type FormPart } from "./multipart.js";
import { queryRuns } from "./run-query.js";
import { toMs, traceStoreOf, type IngestCreate, type IngestUpdate, type StoredAttachment, type TraceStore } from "./trace-store.js";
import { feedbackStats, traceRunResponse } from "./trace-views.js";

const R = "tracing/runs.json#/$defs/";
const BATCH = `${R}TraceRunBatch`;
const FEEDBACK_CREATE = "tracing/feedback-create.json#/$defs/FeedbackCreate";
const ACCEPTED = `${R}TraceIngestAccepted`;
/** The fields the clients send as parts of their own (`post.<id>.inputs`…). */
const FIELD_PARTS = new Set(["inputs", "outputs", "events", "extra", "error", "serialized"]);

/**
 * LangSmith's run ingestion and read-back as the langsmith clients use them: `POST /runs/batch`,
 * `POST /runs/multipart` (what the clients pick when `/info` advertises it, gzip- or zstd-compressed
 * or not), `POST /runs`, `PATCH /runs/{run_id}`, `GET /runs/{run_id}` and `POST /runs/query`. Runs
 * are kept in the mock's trace store (trace-store.ts), bounded; ingestion answers 202 as the real
 * service, which ingests asynchronously, does. Literal paths come before `/runs/{run_id}`.
 */
export function runRoutes(ctx: MockContext): RouteSpec[] {
  const store = () => traceStoreOf(ctx);
  return [
    route<{ body: TraceRunBatch }>({
      name: "runs.batch",
      method: "POST",
      path: "/runs/batch",
      summary: "Create and update runs in one batch",
      body: BATCH,
      responses: { 202: ACCEPTED },
      handler: ({ body }) => {
        ingest(store(), (body.post ?? []).map((run) => ({ run, size: sizeOf(run) })), (body.patch ?? []).map((update) => ({ id: update.id as string, update, size: sizeOf(update) })));
        return { message: "Runs batch ingested" };
      },
    }),
    route<{ headers: { "content-type"?: string }; body: Buffer | undefined }>({
      name: "runs.multipart",
      method: "POST",
      path: "/runs/multipart",
      summary: "Create and update runs, their inputs, outputs, attachments and feedback, as multipart parts",
      headers: { type: "object", properties: { "content-type": { type: "string" } } },
      bodyKind: "raw",
      responses: { 202: ACCEPTED },
      handler: ({ headers, body }) => {
        const boundary = boundaryOf(headers["content-type"]);
        const parts = boundary && Buffer.isBuffer(body) ? parseMultipart(body, boundary) : undefined;
        if (!parts) throw tracingErrors.badMultipart();
        const read = readParts(parts);
        const feedback = read.feedback.map((f) => checked<FeedbackCreate>(FEEDBACK_CREATE, f));
        ingest(store(), read.creates, read.updates);
        for (const f of feedback) if (!feedbackIn(ctx).has(f.id ?? "")) recordApiFeedback(ctx, f, f.id ?? ctx.random.uuid4());
        return { message: "Runs batch ingested" };
      },
    }),
    route<{ body: TraceRunCreate }>({
      name: "runs.create",
      method: "POST",
      path: "/runs",
      summary: "Create a run",
      body: `${R}TraceRunCreate`,
      responses: { 202: ACCEPTED },
      handler: ({ body }) => {
        refuseUnusableTimes([[body, ["body"]]]);
        if (body.id && store().get(body.id.toLowerCase())) throw tracingErrors.runExists(body.id.toLowerCase());
        store().create({ run: body, size: sizeOf(body) });
        return { message: "Run created" };
      },
    }),
    route<{ body: TraceRunQuery }>({
      name: "runs.query",
      method: "POST",
      path: "/runs/query",
      summary: "Query runs (what listRuns calls)",
      body: `${R}TraceRunQuery`,
      emptyBody: {},
      responses: { 200: `${R}TraceRunQueryResponse` },
      handler: ({ body }) => {
        const s = store();
        const { runs, next } = queryRuns(s, body);
        const stats = feedbackStats(ctx);
        return { runs: runs.map((r) => traceRunResponse(r, s, stats)), cursors: { next, prev: null } };
      },
    }),
    route<{ params: { run_id: string } }>({
      name: "runs.get",
      method: "GET",
      path: "/runs/{run_id}",
      summary: "Read a run",
      params: `${R}TraceRunPath`,
      responses: { 200: `${R}TraceRun` },
      handler: ({ params }) => {
        const s = store();
        const run = s.get(params.run_id);
        if (!run) throw tracingErrors.runNotFound();
        return traceRunResponse(run, s, feedbackStats(ctx));
      },
    }),
    route<{ params: { run_id: string }; body: TraceRunUpdate }>({
      name: "runs.update",
      method: "PATCH",
      path: "/runs/{run_id}",
      summary: "Update a run (an update for a run not posted yet waits for it)",
      params: `${R}TraceRunPath`,
      body: `${R}TraceRunUpdate`,
      responses: { 202: ACCEPTED },
      handler: ({ params, body }) => {
        refuseUnusableTimes([[body, ["body"]]]);
        store().update({ id: params.run_id, update: body, size: sizeOf(body) });
        return { message: "Run updated" };
      },
    }),
  ];
}

/**
 * Creates first, then updates: a client merges a run's create and update of one batch already. Every
 * time is checked before the first run is stored, so a refused batch stores none of its runs.
 */
function ingest(store: TraceStore, creates: IngestCreate[], updates: IngestUpdate[]): void {
  refuseUnusableTimes([...creates.map((c, i): TimedRun => [c.run, ["body", "post", i]]), ...updates.map((u, i): TimedRun => [u.update, ["body", "patch", i]])]);
  for (const c of creates) store.create(c);
  for (const u of updates) store.update(u);
}

type TimedRun = [TraceRunCreate | TraceRunUpdate, (string | number)[]];

/**
 * A 422 naming every `start_time` / `end_time` that is no time the clock can hold (`toMs`): the schema
 * lets any text or number through, as what it says can only be read, not matched.
 */
function refuseUnusableTimes(runs: TimedRun[]): void {
  const issues: ValidationIssue[] = [];
  for (const [run, loc] of runs) {
    for (const field of ["start_time", "end_time"] as const) {
      const value = (run as { [K in typeof field]?: string | number | null })[field];
      if (value != null && toMs(value) === undefined) issues.push(tracingErrors.runTimeIssue([...loc, field], value));
    }
  }
  if (issues.length) throw tracingErrors.runTimesInvalid(issues);
}

/** Bytes a run's payload counts toward the store's cap: its JSON text. */
function sizeOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

/** Validates a value read from a part as the route's body would be: the same FastAPI 422 at `["body", …]`. */
function checked<T>(schema: string, value: unknown): T {
  const { value: read, problem } = readPart("body", schema, value);
  if (problem) throw fastApiInvalid([problem]);
  return read as T;
}

interface ReadParts {
  creates: IngestCreate[];
  updates: IngestUpdate[];
  feedback: unknown[];
}

/**
 * The multipart parts as the clients name them: `post.<id>` / `patch.<id>` (the run without its big
 * fields), `post.<id>.inputs|outputs|events|extra|error|serialized`, `attachment.<id>.<name>` (bytes),
 * `feedback.<id>`. The runs are checked together as one `{post, patch}` batch body.
 */
function readParts(parts: readonly FormPart[]): ReadParts {
  const ops = new Map<string, { op: "post" | "patch"; id: string; run: Record<string, unknown>; size: number }>();
  const attachments = new Map<string, Record<string, StoredAttachment>>();
  const feedback: unknown[] = [];
  const opFor = (op: "post" | "patch", id: string) => {
    const key = `${op}.${id}`;
    let entry = ops.get(key);
    if (!entry) ops.set(key, (entry = { op, id, run: {}, size: 0 }));
    return entry;
  };
  for (const part of parts) {
    const [kind, id, field, ...rest] = part.name.split(".");
    if (id === undefined || !isUuid(id)) throw tracingErrors.badPart(`Invalid part name ${JSON.stringify(part.name)}: the second segment must be a run id`);
    if (kind === "attachment" && field !== undefined && rest.length === 0) {
      const own = attachments.get(id.toLowerCase()) ?? {};
      setOwn(own, field, { content_type: part.contentType.replace(/;.*$/, "").trim(), data: Buffer.from(part.data) });
      attachments.set(id.toLowerCase(), own);
      continue;
    }
    if (kind === "feedback" && field === undefined) {
      feedback.push({ id, ...(asObject(json(part), part.name)) });
      continue;
    }
    if ((kind === "post" || kind === "patch") && rest.length === 0) {
      const entry = opFor(kind, id.toLowerCase());
      entry.size += part.data.length;
      if (field === undefined) {
        const fields = asObject(json(part), part.name);
        for (const [k, v] of Object.entries(fields)) if (!FIELD_PARTS.has(k) || entry.run[k] === undefined) setOwn(entry.run, k, v);
        entry.run.id = id;
        continue;
      }
      if (FIELD_PARTS.has(field)) {
        entry.run[field] = json(part);
        continue;
      }
    }
    throw tracingErrors.badPart(`Invalid part name ${JSON.stringify(part.name)}: expected post.<id>, patch.<id>, post.<id>.<inputs|outputs|events|extra|error|serialized>, attachment.<id>.<name> or feedback.<id>`);
  }
  const post: Record<string, unknown>[] = [];
  const patch: Record<string, unknown>[] = [];
  const sizes: number[][] = [[], []];
  for (const entry of ops.values()) {
    (entry.op === "post" ? post : patch).push(entry.run);
    (sizes[entry.op === "post" ? 0 : 1] as number[]).push(entry.size);
  }
  const batch = checked<TraceRunBatch>(BATCH, { post, patch });
  const attachmentsOf = (id: string) => {
    const own = attachments.get(id.toLowerCase());
    attachments.delete(id.toLowerCase());
    return own;
  };
  const attachedSize = (a: Record<string, StoredAttachment> | undefined) => Object.values(a ?? {}).reduce((n, x) => n + x.data.length, 0);
  const creates = (batch.post ?? []).map((run, i): IngestCreate => {
    const own = attachmentsOf(run.id as string);
    return { run, attachments: own, size: (sizes[0]?.[i] ?? 0) + attachedSize(own) };
  });
  const updates = (batch.patch ?? []).map((update, i): IngestUpdate => {
    const own = attachmentsOf(update.id as string);
    return { id: update.id as string, update, attachments: own, size: (sizes[1]?.[i] ?? 0) + attachedSize(own) };
  });
  // Attachments of a run that has no operation in this body go to the stored run (or wait for it).
  for (const [id, own] of attachments) updates.push({ id, update: {}, attachments: own, size: attachedSize(own) });
  return { creates, updates, feedback };
}

function json(part: FormPart): unknown {
  // Nesting is bounded before anything walks the value, as for every JSON body (core/shape-limits.ts).
  if (jsonTextDepth(part.data) > MAX_DEPTH) throw tracingErrors.badPart(`Part ${JSON.stringify(part.name)} is nested deeper than ${MAX_DEPTH} levels`);
  try {
    return JSON.parse(part.data.toString("utf8"));
  } catch {
    throw tracingErrors.badPart(`Part ${JSON.stringify(part.name)} is not valid JSON`);
  }
}

function asObject(value: unknown, name: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw tracingErrors.badPart(`Part ${JSON.stringify(name)} must be a JSON object`);
  return value as Record<string, unknown>;
}
