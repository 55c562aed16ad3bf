import type { MockContext } from "../context.js";
import { object, reply, route, UUID, type RouteSpec } from "../http/route.js";
import type { RunService } from "./runs.js";
import { removeThread } from "./thread-operations.js";
import { isUuid } from "../core/random.js";
import { assistantResponse, defaultAssistantId, versionResponse, type AssistantCreateInput, type AssistantPatchInput, type Assistants } from "./assistants.js";
import type { GraphCatalog } from "./graphs.js";
import { contains } from "../core/contains.js";
import { searchPage } from "./pagination.js";
import { agentErrors } from "./errors.js";
import { ASSISTANT, errors } from "./route-schemas.js";
import type { AssistantCountRequest, AssistantSearchRequest, AssistantVersionsRequest } from "../schemas/types.gen.js";
import { threadsIn } from "./threads.js";

type SearchBody = Required<Pick<AssistantSearchRequest, "limit" | "offset" | "sort_by" | "sort_order">> & AssistantSearchRequest;
type VersionsBody = Required<Pick<AssistantVersionsRequest, "limit" | "offset">> & AssistantVersionsRequest;
type IdPath = { assistant_id: string };

const ID_PATH = object({ assistant_id: UUID });
/** `GET …/graph` also takes a graph name for the id, as the real server's `get_assistant_id`. */
const ID_OR_GRAPH_PATH = object({ assistant_id: { type: "string", minLength: 1 } });
const RECURSE_QUERY = { type: "object", properties: { recurse: { type: "boolean", default: false } } };

/**
 * The assistants routes (docs/agent-server.md "Assistants"): create, search, count, get, patch (a new
 * version), delete, versions and set-latest, and the graph, schemas and subgraphs of an assistant's
 * graph as the `graphs` fixtures describe it.
 */
export function assistantsRoutes(ctx: MockContext, assistants: Assistants, graphs: GraphCatalog, runs: RunService): RouteSpec[] {
  const matches = (a: { graph_id: string; name: string; metadata: Record<string, unknown> }, f: { graph_id?: string; name?: string; metadata?: Record<string, unknown> }) =>
    (!f.graph_id || a.graph_id === f.graph_id) && (!f.name || a.name.toLowerCase().includes(f.name.toLowerCase())) && (!f.metadata || contains(a.metadata, f.metadata));
  return [
    route<{ body: AssistantCreateInput }>({
      name: "assistants.create",
      method: "POST",
      path: "/assistants",
      body: `${ASSISTANT}AssistantCreate`,
      responses: { 200: `${ASSISTANT}Assistant`, ...errors(400, 404, 409, 422) },
      handler: ({ body }) => assistantResponse(assistants.create(body)),
    }),
    route<{ body: SearchBody }>({
      name: "assistants.search",
      method: "POST",
      path: "/assistants/search",
      body: `${ASSISTANT}AssistantSearchRequest`,
      emptyBody: {},
      responses: { 200: `${ASSISTANT}AssistantSearchResponse`, ...errors(422) },
      handler: ({ body }) => {
        const found = assistants.all().filter((a) => matches(a, body));
        const key = body.sort_by;
        // Names and graph ids sort case-insensitively, as the real server's LOWER().
        return searchPage(found, (a) => (key === "name" || key === "graph_id" ? a[key].toLowerCase() : a[key]), assistantResponse, body);
      },
    }),
    route<{ body: AssistantCountRequest }>({
      name: "assistants.count",
      method: "POST",
      path: "/assistants/count",
      body: `${ASSISTANT}AssistantCountRequest`,
      emptyBody: {},
      responses: { 200: `${ASSISTANT}AssistantCount`, ...errors(422) },
      handler: ({ body }) => assistants.all().filter((a) => matches(a, body)).length,
    }),
    route<{ params: IdPath }>({
      name: "assistants.get",
      method: "GET",
      path: "/assistants/{assistant_id}",
      params: ID_PATH,
      responses: { 200: `${ASSISTANT}Assistant`, ...errors(404, 422) },
      handler: ({ params }) => assistantResponse(assistants.require(params.assistant_id)),
    }),
    route<{ params: IdPath; body: AssistantPatchInput }>({
      name: "assistants.update",
      method: "PATCH",
      path: "/assistants/{assistant_id}",
      params: ID_PATH,
      body: `${ASSISTANT}AssistantPatch`,
      emptyBody: {},
      responses: { 200: `${ASSISTANT}Assistant`, ...errors(400, 404, 422) },
      handler: ({ params, body }) => assistantResponse(assistants.patch(params.assistant_id, body)),
    }),
    route<{ params: IdPath; query: { delete_threads: boolean } }>({
      name: "assistants.delete",
      method: "DELETE",
      path: "/assistants/{assistant_id}",
      params: ID_PATH,
      query: { type: "object", properties: { delete_threads: { type: "boolean", default: false } } },
      responses: { 204: null, ...errors(404, 422) },
      handler: ({ params, query }) => {
        assistants.delete(params.assistant_id);
        // The document: `delete_threads` deletes every thread whose metadata names the assistant, with its runs and checkpoints.
        if (query.delete_threads) {
          const id = params.assistant_id.toLowerCase();
          for (const thread of threadsIn(ctx).filter((t) => t.metadata.assistant_id === id)) removeThread(ctx, runs, thread.thread_id);
        }
        return reply(204);
      },
    }),
    route<{ params: IdPath; body: VersionsBody }>({
      name: "assistants.versions",
      method: "POST",
      path: "/assistants/{assistant_id}/versions",
      params: ID_PATH,
      body: `${ASSISTANT}AssistantVersionsRequest`,
      emptyBody: {},
      responses: { 200: `${ASSISTANT}AssistantVersionList`, ...errors(404, 422) },
      handler: ({ params, body }) => assistants.versions(params.assistant_id, body).map(versionResponse),
    }),
    route<{ params: IdPath; body: { version: number } }>({
      name: "assistants.setLatest",
      method: "POST",
      path: "/assistants/{assistant_id}/latest",
      params: ID_PATH,
      body: `${ASSISTANT}AssistantLatestRequest`,
      responses: { 200: `${ASSISTANT}Assistant`, ...errors(404, 422) },
      handler: ({ params, body }) => assistantResponse(assistants.setLatest(params.assistant_id, body.version)),
    }),
    route<{ params: IdPath; query: { xray?: string } }>({
      name: "assistants.graph",
      method: "GET",
      path: "/assistants/{assistant_id}/graph",
      params: ID_OR_GRAPH_PATH,
      query: { type: "object", properties: { xray: { type: "string" } } },
      responses: { 200: `${ASSISTANT}DrawableGraph`, ...errors(404, 422) },
      handler: ({ params, query }) => {
        const id = isUuid(params.assistant_id) ? params.assistant_id : assistants.graphs().includes(params.assistant_id) ? defaultAssistantId(params.assistant_id) : undefined;
        if (!id) throw agentErrors.invalidAssistantId();
        const assistant = assistants.require(id);
        return graphs.drawable(assistant.graph_id, parseXray(query.xray));
      },
    }),
    route<{ params: IdPath }>({
      name: "assistants.schemas",
      method: "GET",
      path: "/assistants/{assistant_id}/schemas",
      params: ID_PATH,
      responses: { 200: `${ASSISTANT}GraphSchema`, ...errors(404, 422) },
      handler: ({ params }) => graphs.schemas(assistants.require(params.assistant_id).graph_id),
    }),
    route<{ params: IdPath; query: { recurse: boolean } }>({
      name: "assistants.subgraphs",
      method: "GET",
      path: "/assistants/{assistant_id}/subgraphs",
      params: ID_PATH,
      query: RECURSE_QUERY,
      responses: { 200: `${ASSISTANT}Subgraphs`, ...errors(404, 422) },
      handler: ({ params, query }) => graphs.subgraphs(assistants.require(params.assistant_id).graph_id, undefined, query.recurse),
    }),
    route<{ params: IdPath & { namespace: string }; query: { recurse: boolean } }>({
      name: "assistants.subgraphsOf",
      method: "GET",
      path: "/assistants/{assistant_id}/subgraphs/{namespace}",
      params: object({ assistant_id: UUID, namespace: { type: "string" } }),
      query: RECURSE_QUERY,
      responses: { 200: `${ASSISTANT}Subgraphs`, ...errors(404, 422) },
      handler: ({ params, query }) => graphs.subgraphs(assistants.require(params.assistant_id).graph_id, params.namespace, query.recurse),
    }),
  ];
}

/** The real server's reading of `xray`: true/True, false/False, or a depth ≥ 1; anything else is a 422. */
function parseXray(text: string | undefined): boolean | number {
  if (text === undefined || text === "") return false;
  if (text === "true" || text === "True") return true;
  if (text === "false" || text === "False") return false;
  const depth = /^[+-]?\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isInteger(depth) || depth <= 0) throw agentErrors.invalidXray();
  return depth;
}
