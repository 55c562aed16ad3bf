import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { route, listOf, type RouteSpec } from "../http/route.js";
import { tracingErrors } from "./errors.js";
import { declareCollection } from "../store/store.js";

const C = "tracing/feedback-config.json#/$defs/";

/** The workspace the tracing service answers for; the mock has one. */
export const TRACING_TENANT_ID = "00000000-0000-4000-8000-00000000c0de";

export interface FeedbackConfigRecord {
  feedback_key: string;
  feedback_config: Record<string, unknown>;
  tenant_id: string;
  /** Epoch ms, formatted only by `configResponse`. */
  modified_at: number;
  is_lower_score_better: boolean | null;
}

/** The `FeedbackConfigSchema` wire form. */
function configResponse(c: FeedbackConfigRecord) {
  return { ...c, modified_at: formatTimestamp(c.modified_at) };
}

interface ListQuery {
  key?: string[] | null;
  name_contains?: string | null;
  offset: number;
  limit?: number | null;
  sort_by_desc: boolean;
}

/**
 * `/feedback-configs`: how each feedback key is scored, one config per key (the document's shape; newer
 * clients' extra fields — `id`, `is_enforced`, `add_categories` — are ignored, as older servers do).
 * Listed newest-modified first unless `sort_by_desc=false`.
 */
export function feedbackConfigRoutes(ctx: MockContext): RouteSpec[] {
  const configs = () => feedbackConfigsIn(ctx);
  return [
    route<{ query: ListQuery }>({
      name: "feedback_configs.list",
      method: "GET",
      path: "/feedback-configs",
      query: `${C}FeedbackConfigListQuery`,
      responses: { 200: listOf(`${C}FeedbackConfigSchema`) },
      handler: ({ query }) => {
        const keys = query.key && new Set(query.key);
        const needle = query.name_contains?.toLowerCase();
        const found = configs().filter((c) => (!keys || keys.has(c.feedback_key)) && (!needle || c.feedback_key.toLowerCase().includes(needle)));
        const sign = query.sort_by_desc ? -1 : 1;
        found.sort((a, b) => sign * (a.modified_at - b.modified_at || a.feedback_key.localeCompare(b.feedback_key)));
        return found.slice(query.offset, query.limit == null ? undefined : query.offset + query.limit).map(configResponse);
      },
    }),
    route<{ body: { feedback_key: string; feedback_config: Record<string, unknown>; is_lower_score_better: boolean | null } }>({
      name: "feedback_configs.create",
      method: "POST",
      path: "/feedback-configs",
      body: `${C}CreateFeedbackConfigSchema`,
      responses: { 200: `${C}FeedbackConfigSchema` },
      handler: ({ body }) => {
        if (configs().has(body.feedback_key)) throw tracingErrors.feedbackConfigExists(body.feedback_key);
        const record: FeedbackConfigRecord = {
          feedback_key: body.feedback_key,
          feedback_config: body.feedback_config,
          tenant_id: TRACING_TENANT_ID,
          modified_at: ctx.clock.now(),
          is_lower_score_better: body.is_lower_score_better,
        };
        return configResponse(configs().set(record.feedback_key, record));
      },
    }),
    route<{ body: { feedback_key: string; feedback_config?: Record<string, unknown> | null; is_lower_score_better?: boolean | null } }>({
      name: "feedback_configs.update",
      method: "PATCH",
      path: "/feedback-configs",
      body: `${C}UpdateFeedbackConfigSchema`,
      responses: { 200: `${C}FeedbackConfigSchema` },
      handler: ({ body }) => {
        const existing = configs().get(body.feedback_key);
        if (!existing) throw tracingErrors.feedbackConfigNotFound(body.feedback_key);
        return configResponse(configs().set(existing.feedback_key, {
          ...existing,
          feedback_config: body.feedback_config ?? existing.feedback_config,
          is_lower_score_better: body.is_lower_score_better === undefined ? existing.is_lower_score_better : body.is_lower_score_better,
          modified_at: ctx.clock.now(),
        }));
      },
    }),
    route<{ query: { feedback_key: string } }>({
      name: "feedback_configs.delete",
      method: "DELETE",
      path: "/feedback-configs",
      query: `${C}FeedbackConfigDeleteQuery`,
      responses: { 204: null },
      handler: ({ query }) => {
        if (!configs().delete(query.feedback_key)) throw tracingErrors.feedbackConfigNotFound(query.feedback_key);
      },
    }),
  ];
}

export const feedbackConfigsIn = declareCollection<FeedbackConfigRecord>("feedback_configs");
