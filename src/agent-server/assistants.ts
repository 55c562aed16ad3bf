import { formatTimestamp } from "../core/clock.js";
import { isUuid, uuid5 } from "../core/random.js";
import { agentErrors } from "./errors.js";

/** The namespace the real server derives default assistant ids from (notes §A1). */
export const ASSISTANT_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

export interface AssistantRef {
  assistant_id: string;
  graph_id: string;
}

/** The default assistant of a graph: id uuid5(graph), as the real server creates it at start. */
export function defaultAssistant(graph: string): AssistantRef {
  return { assistant_id: uuid5(graph, ASSISTANT_NAMESPACE), graph_id: graph };
}

/** The `Assistant` wire form (schema agent-server/assistant.json#/$defs/Assistant). */
export function assistantResponse(graph: string, createdAt: number) {
  const at = formatTimestamp(createdAt);
  return {
    assistant_id: defaultAssistant(graph).assistant_id,
    graph_id: graph,
    config: {},
    context: {},
    created_at: at,
    updated_at: at,
    metadata: { created_by: "system" },
    version: 1,
    name: graph,
    description: null,
  };
}

/**
 * The assistant a run names: a graph name or an assistant UUID. An unknown UUID is the real
 * server's 404; a name that is no graph is its 422 listing the graphs.
 */
export function resolveAssistant(id: string, graphs: readonly string[]): AssistantRef {
  if (isUuid(id)) {
    const graph = graphs.find((g) => defaultAssistant(g).assistant_id === id.toLowerCase());
    if (!graph) throw agentErrors.threadOrAssistantNotFound();
    return defaultAssistant(graph);
  }
  if (!graphs.includes(id)) throw agentErrors.invalidAssistant(id, graphs);
  return defaultAssistant(id);
}
