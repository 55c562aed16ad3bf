import { route, type RouteSpec } from "../http/route.js";
import { SERVER_IDENTITY } from "./server-identity.js";

const SYSTEM = "agent-server/system.json#/$defs/";

/** `GET /ok` and `GET /info`, which deployment health checks and the SDKs' capability probes call (no API key). */
export const systemRoutes: RouteSpec[] = [
  route({
    name: "system.ok",
    method: "GET",
    path: "/ok",
    public: true,
    responses: { 200: `${SYSTEM}HealthOk` },
    handler: () => ({ ok: true }),
  }),
  route({
    name: "system.info",
    method: "GET",
    path: "/info",
    public: true,
    responses: { 200: `${SYSTEM}ServerInfo` },
    handler: () => ({
      version: SERVER_IDENTITY.apiVersion,
      langgraph_py_version: SERVER_IDENTITY.langgraphVersion,
      flags: { assistants: true, crons: true, langsmith: true, langsmith_tracing_replicas: true },
      metadata: { simulated_by: "agent-platform-mock" },
    }),
  }),
];
