import { isUuid } from "../core/random.js";
import { assistantResponse, defaultAssistant } from "./assistants.js";
import { contains, selectFields } from "./search-filters.js";
import { agentErrors } from "./errors.js";
import type { AgentRoutes } from "./index.js";
import type { ScenarioRegistry } from "./scenario-registry.js";
import { readBody } from "./validation.js";

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
export function assistantsRoutes(on: AgentRoutes, scenarios: ScenarioRegistry, createdAt: number): void {
  on.post("/assistants/search", (req, res) => {
    const body = readBody<AssistantSearchBody>("agent-server/assistant.json#/$defs/AssistantSearchRequest", req.body ?? {});
    const name = body.name?.toLowerCase();
    const found = scenarios
      .graphs()
      .map((g) => assistantResponse(g, createdAt))
      .filter((a) => (!body.graph_id || a.graph_id === body.graph_id) && (!name || a.name.toLowerCase().includes(name)) && (!body.metadata || contains(a.metadata, body.metadata)));
    const key = body.sort_by;
    const sign = body.sort_order === "asc" ? 1 : -1;
    found.sort((a, b) => sign * String(a[key]).localeCompare(String(b[key])));
    const page = found.slice(body.offset, body.offset + body.limit);
    res.json(body.select ? page.map((a) => selectFields(a, body.select as string[])) : page);
  });

  on.get("/assistants/:assistant_id", (req, res) => {
    const id = req.params.assistant_id as string;
    if (!isUuid(id)) throw agentErrors.invalidAssistantId();
    const graph = scenarios.graphs().find((g) => defaultAssistant(g).assistant_id === id.toLowerCase());
    if (!graph) throw agentErrors.notFound();
    res.json(assistantResponse(graph, createdAt));
  });
}
