import { object, route, UUID, type RouteSpec } from "../http/route.js";
import { assistantResponse, defaultAssistant } from "./assistants.js";
import { contains, selectFields } from "./search-filters.js";
import { agentErrors } from "./errors.js";
import { ASSISTANT, errors } from "./route-schemas.js";
import type { ScenarioRegistry } from "./scenario-registry.js";

interface AssistantSearchBody {
  metadata?: Record<string, unknown>;
  graph_id?: string;
  name?: string;
  limit: number;
  offset: number;
  sort_by: "assistant_id" | "created_at" | "updated_at" | "name" | "graph_id";
  sort_order: "asc" | "desc";
  select?: string[];
}

/** `POST /assistants/search`, `GET /assistants/{id}`: one default assistant per graph the scenarios name. */
export function assistantsRoutes(scenarios: ScenarioRegistry, createdAt: number): RouteSpec[] {
  return [
    route<{ body: AssistantSearchBody }>({
      name: "assistants.search",
      method: "POST",
      path: "/assistants/search",
      body: `${ASSISTANT}AssistantSearchRequest`,
      emptyBody: {},
      responses: { 200: `${ASSISTANT}AssistantSearchResponse`, ...errors(422) },
      handler: ({ body }) => {
        const name = body.name?.toLowerCase();
        const found = scenarios
          .graphs()
          .map((g) => assistantResponse(g, createdAt))
          .filter((a) => (!body.graph_id || a.graph_id === body.graph_id) && (!name || a.name.toLowerCase().includes(name)) && (!body.metadata || contains(a.metadata, body.metadata)));
        const key = body.sort_by;
        const sign = body.sort_order === "asc" ? 1 : -1;
        found.sort((a, b) => sign * String(a[key]).localeCompare(String(b[key])));
        const page = found.slice(body.offset, body.offset + body.limit);
        return body.select ? page.map((a) => selectFields(a, body.select as string[])) : page;
      },
    }),
    route<{ params: { assistant_id: string } }>({
      name: "assistants.get",
      method: "GET",
      path: "/assistants/{assistant_id}",
      params: object({ assistant_id: UUID }),
      responses: { 200: `${ASSISTANT}Assistant`, ...errors(404, 422) },
      handler: ({ params }) => {
        const graph = scenarios.graphs().find((g) => defaultAssistant(g).assistant_id === params.assistant_id);
        if (!graph) throw agentErrors.notFound();
        return assistantResponse(graph, createdAt);
      },
    }),
  ];
}
