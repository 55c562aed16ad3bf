import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { isPlainObject } from "../core/json.js";
import { hangUp, object, reply, route, sse, UUID, type RequestScope, type RouteSpec } from "../http/route.js";
import { A2A_CODES, A2aError, artifact, finishedStatus, finishedTask, history, messageInput, readMessage, readTaskParams, resultParts, resumeValue, runState } from "./a2a.js";
import { accepts, RPC, rpcError, rpcId, rpcResult, type RpcId } from "./json-rpc.js";
import { errors, headers } from "./route-schemas.js";
import { runsIn, type RunCreateBody, type RunService } from "./runs.js";
import { runScope } from "./runs-routes.js";
import { HEARTBEAT } from "./sse.js";
import { threadsIn } from "./threads.js";

const A2A = "agent-server/a2a.json#/$defs/";
const METHODS = new Set(["message/send", "message/stream", "tasks/get", "tasks/cancel"]);

/**
 * `POST /a2a/{assistant_id}`: the A2A protocol (0.3, JSON-RPC) over an assistant, and the agent card
 * that describes it. Messages start runs through the RunService, so scenarios, /_mock/runs and
 * feedback work as for any run.
 */
export function a2aRoutes(ctx: MockContext, runs: RunService): RouteSpec[] {
  return [
    route<{ query: { assistant_id: string } }>({
      name: "a2a.agent_card",
      method: "GET",
      path: "/.well-known/agent-card.json",
      query: `${A2A}A2AAgentCardQuery`,
      responses: { 200: `${A2A}A2AAgentCard`, ...errors(404, 422) },
      handler: ({ query, scope }) => {
        const assistant = runs.assistants.resolve(query.assistant_id);
        return agentCard(assistant.graph_id, `${scope.baseUrl}${mountPrefix(scope)}/a2a/${assistant.assistant_id}`);
      },
    }),
    route<{ params: { assistant_id: string }; headers: { accept?: string }; body: Record<string, unknown> }>({
      name: "a2a.post",
      method: "POST",
      path: "/a2a/{assistant_id}",
      params: object({ assistant_id: UUID }),
      headers: headers({ accept: { type: "string" } }),
      body: `${A2A}A2ARequest`,
      responses: { 200: `${A2A}A2AResponse`, 400: `${A2A}A2AResponse`, ...errors(404, 409, 422) },
      handler: async ({ params, headers, body, scope }) => {
        const id = rpcId(body);
        const envelope = checkEnvelope(body, headers.accept);
        if (envelope) return reply(400, rpcError(id, envelope.code, envelope.message));
        const assistant = runs.assistants.resolve(params.assistant_id);
        try {
          switch (body.method) {
            case "message/send":
            case "message/stream":
              return await sendMessage(ctx, runs, assistant.assistant_id, id, body, scope);
            case "tasks/get":
              return rpcResult(id, getTask(ctx, body.params));
            default:
              readTaskParams(body.params);
              throw new A2aError(A2A_CODES.unsupportedOperation, "Unsupported operation: tasks/cancel is not supported");
          }
        } catch (err) {
          if (err instanceof A2aError) return rpcError(id, err.code, err.message);
          throw err;
        }
      },
    }),
  ];
}

/** `/agents/<id>` when the request came in on a deployment's custom URL, else "". */
function mountPrefix(scope: RequestScope): string {
  return scope.mount.deployment_id ? `/agents/${scope.mount.deployment_id}` : "";
}

/** The envelope problems the real server answers with 400: not JSON-RPC 2.0, an unknown method, a bad Accept. */
function checkEnvelope(body: Record<string, unknown>, accept: string | undefined): { code: number; message: string } | undefined {
  if (body.jsonrpc !== "2.0") return { code: RPC.invalidRequest, message: "Invalid Request: jsonrpc must be '2.0'" };
  if (rpcId(body) === null) return { code: RPC.invalidRequest, message: "Invalid Request: id must be a string or an integer" };
  if (typeof body.method !== "string") return { code: RPC.invalidRequest, message: "Invalid Request: method must be a string" };
  if (!METHODS.has(body.method)) return { code: RPC.methodNotFound, message: `Method not found: ${body.method}` };
  if (body.method === "message/stream" ? !accepts(accept, "text/event-stream") : !accepts(accept, "application/json")) {
    return { code: RPC.invalidRequest, message: `Invalid Request: the Accept header must include ${body.method === "message/stream" ? "text/event-stream" : "application/json"}` };
  }
  return undefined;
}

/** The agent card of a default assistant (A2A 0.3 shape: the real server's card lists one skill per graph). */
function agentCard(graph: string, url: string) {
  return {
    protocolVersion: "0.3.0",
    name: graph,
    description: `${graph} assistant`,
    url,
    preferredTransport: "JSONRPC",
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: [{ id: `${graph}-main`, name: `${graph} Capabilities`, description: `${graph} assistant`, tags: ["assistant", "langgraph"], inputModes: ["application/json", "text/plain"], outputModes: ["application/json", "text/plain"] }],
  };
}

/**
 * message/send and message/stream: a run on the message's context (a new thread when it names none).
 * A message that names a task of a thread stopped at an interrupt resumes it.
 */
async function sendMessage(ctx: MockContext, runs: RunService, assistantId: string, id: RpcId, body: Record<string, unknown>, scope: RequestScope) {
  const message = readMessage(body.params);
  const threadId = message.contextId ?? ctx.random.uuid4();
  const thread = threadsIn(ctx).get(threadId);
  const resume = message.taskId !== undefined && thread?.status === "interrupted";
  const stream = body.method === "message/stream";
  const runBody: RunCreateBody = {
    assistant_id: assistantId,
    ...(resume ? { command: { resume: resumeValue(message) } } : { input: messageInput(message) }),
    stream_mode: ["values"],
    stream_subgraphs: false,
    stream_resumable: false,
    multitask_strategy: "reject",
    // A new context is a new thread; a context the client made up is created on first use too.
    if_not_exists: "create",
    on_disconnect: "continue",
    on_completion: "keep",
  };
  const { run, execution } = runs.create(runBody, runScope(scope, stream ? "stream" : "wait", threadId));
  if (!stream) {
    const outcome = await execution.done;
    if (outcome.kind === "disconnect") return hangUp();
    return rpcResult(id, finishedTask(ctx, run, outcome));
  }
  const at = () => formatTimestamp(ctx.clock.now());
  const base = { taskId: run.run_id, contextId: run.thread_id };
  const userMessage = { kind: "message", role: "user", messageId: message.messageId, parts: partsOf(body), ...base };
  // The task's events as JSON-RPC results, `data:` lines only; the head goes out at once.
  return sse(
    (out) => {
      const send = (result: unknown) => out.event(`data: ${JSON.stringify(rpcResult(id, result))}\n\n`);
      send({ kind: "task", id: run.run_id, contextId: run.thread_id, status: { state: "submitted", timestamp: at() }, history: [userMessage] });
      send({ kind: "status-update", ...base, status: { state: "working", timestamp: at() }, final: false });
      let open = true;
      const unsubscribe = execution.subscribe({ frame: () => {}, heartbeat: () => out.heartbeat(HEARTBEAT), end: () => {} });
      void execution.done.then((outcome) => {
        unsubscribe();
        if (!open) return;
        if (outcome.kind === "disconnect") return out.drop();
        const status = finishedStatus(ctx, run, outcome);
        if (status.state === "completed") send({ kind: "artifact-update", ...base, artifact: artifact(ctx, outcome.values), lastChunk: true });
        send({ kind: "status-update", ...base, status, final: true });
        out.flushed(() => out.end());
      });
      return () => {
        open = false;
        unsubscribe();
      };
    },
    { headNow: true },
  );
}

/** The message parts as sent (the task's history echoes the user's message). */
function partsOf(body: Record<string, unknown>): unknown[] {
  const params = body.params;
  return isPlainObject(params) && isPlainObject(params.message) && Array.isArray(params.message.parts) ? params.message.parts : [];
}

/** tasks/get: the run `id` on the thread `contextId`, with its state now. */
function getTask(ctx: MockContext, params: unknown) {
  const p = readTaskParams(params);
  const run = runsIn(ctx).get(p.id);
  const thread = threadsIn(ctx).get(p.contextId);
  if (!run || !thread || run.thread_id !== thread.thread_id) throw new A2aError(A2A_CODES.taskNotFound, `Task not found: ${p.id}`);
  const state = runState(run, thread.status === "interrupted");
  const task: Record<string, unknown> = { kind: "task", id: run.run_id, contextId: run.thread_id, status: { state, timestamp: formatTimestamp(run.updated_at) } };
  if (state === "completed") task.artifacts = [{ artifactId: `${run.run_id}-response`, name: "Assistant Response", parts: resultParts(thread.values) }];
  if (p.historyLength !== undefined) task.history = history(thread.values, run.run_id, run.thread_id, p.historyLength);
  return task;
}
