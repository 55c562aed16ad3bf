import type { MockContext } from "../context.js";
import { isPlainObject } from "../core/json.js";
import { reply, route, type RouteSpec } from "../http/route.js";
import { accepts, RPC, rpcError, rpcId, rpcResult, type RpcId } from "./json-rpc.js";
import { defaultAssistantId } from "./assistants.js";
import { errors, headers } from "./route-schemas.js";
import { finalValues, type RunCreateBody, type RunService } from "./runs.js";
import { runScope } from "./runs-routes.js";
import type { ScenarioRegistry } from "./scenario-registry.js";

const MCP = "agent-server/mcp.json#/$defs/";

/** MCP revisions the endpoint speaks; initialize answers the client's one when listed, else the first. */
const PROTOCOL_VERSIONS = ["2025-06-18", "2025-11-25", "2025-03-26", "2024-11-05"];

/** What a tool's arguments may be: any graph input object (the default assistants have no input schema). */
const TOOL_INPUT_SCHEMA = { type: "object", properties: { messages: { type: "array", items: { type: "object" } } } };

/**
 * `/mcp/`: MCP over streamable HTTP, stateless as on the real server (no session id; GET is 405,
 * DELETE 404). Each assistant is a tool; calling it runs the scenario its arguments match, as a
 * stateless run through the RunService, and returns the run's final values.
 */
export function mcpRoutes(ctx: MockContext, runs: RunService, scenarios: ScenarioRegistry): RouteSpec[] {
  return [
    route<{ headers: { accept?: string }; body: Record<string, unknown> }>({
      name: "mcp.post",
      method: "POST",
      path: "/mcp/",
      headers: headers({ accept: { type: "string" } }),
      body: `${MCP}McpRequest`,
      responses: { 200: `${MCP}McpResponse`, 202: null, 400: `${MCP}McpResponse`, ...errors(404, 409, 422) },
      handler: async ({ headers, body, scope }) => {
        const id = rpcId(body);
        // [real] the streamable HTTP transport refuses a client that cannot take both answers.
        if (!accepts(headers.accept, "application/json") || !accepts(headers.accept, "text/event-stream")) {
          return reply(400, rpcError(id, RPC.invalidRequest, "Not Acceptable: Client must accept both application/json and text/event-stream"));
        }
        if (body.jsonrpc !== "2.0") return reply(400, rpcError(id, RPC.invalidRequest, "Invalid Request: jsonrpc must be '2.0'"));
        // Notifications (no id) and responses to the server are acknowledged without a body.
        if (body.id === undefined || typeof body.method !== "string") return reply(202);
        if (id === null) return reply(400, rpcError(null, RPC.invalidRequest, "Invalid Request: id must be a string or an integer"));
        switch (body.method) {
          case "initialize":
            return rpcResult(id, initialize(body.params));
          case "ping":
            return rpcResult(id, {});
          case "tools/list":
            return rpcResult(id, { tools: scenarios.graphs().map(tool) });
          case "tools/call":
            return callTool(runs, scenarios, id, body.params, runScope(scope, "wait", null));
          default:
            return rpcError(id, RPC.methodNotFound, `Method not found: ${body.method}`);
        }
      },
    }),
    route({
      name: "mcp.get",
      method: "GET",
      path: "/mcp/",
      responses: { 405: null },
      // [real] no server-to-client stream: the server is stateless.
      handler: () => reply(405, undefined, { Allow: "POST, DELETE" }),
    }),
    route({
      name: "mcp.delete",
      method: "DELETE",
      path: "/mcp/",
      responses: { 404: null },
      // [real] there are no sessions to terminate.
      handler: () => reply(404),
    }),
  ];
}

function initialize(params: unknown) {
  const asked = isPlainObject(params) ? params.protocolVersion : undefined;
  return {
    protocolVersion: typeof asked === "string" && PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: "LangGraph", version: "0.5.23" },
  };
}

/** The tool of a default assistant: named for its graph, as the assistant is. */
function tool(graph: string) {
  return { name: graph, description: `${graph} assistant (${defaultAssistantId(graph)})`, inputSchema: TOOL_INPUT_SCHEMA };
}

/** tools/call: a stateless run of the named assistant with the arguments as input; its final values as the result. */
async function callTool(runs: RunService, scenarios: ScenarioRegistry, id: RpcId, params: unknown, scope: ReturnType<typeof runScope>) {
  if (!isPlainObject(params) || typeof params.name !== "string") return rpcError(id, RPC.invalidParams, "Invalid params: name must be a string");
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return rpcError(id, RPC.invalidParams, "Invalid params: arguments must be an object");
  if (!scenarios.graphs().includes(params.name)) return rpcError(id, RPC.invalidParams, `Unknown tool: ${params.name}`);
  const body: RunCreateBody = {
    assistant_id: defaultAssistantId(params.name),
    input: params.arguments ?? {},
    stream_mode: ["values"],
    stream_subgraphs: false,
    stream_resumable: false,
    multitask_strategy: "reject",
    if_not_exists: "reject",
    on_disconnect: "continue",
    on_completion: "delete",
  };
  const { execution } = runs.create(body, scope);
  const outcome = await execution.done;
  const values = finalValues(outcome);
  const failed = outcome.kind !== "success";
  return rpcResult(id, { content: [{ type: "text", text: JSON.stringify(values) }], structuredContent: values, isError: failed });
}
