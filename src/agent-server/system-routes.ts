import type { AgentRoutes } from "./index.js";

/** `GET /ok` and `GET /info`, which deployment health checks and the SDKs' capability probes call. */
export function systemRoutes(on: AgentRoutes): void {
  on.get("/ok", (_req, res) => {
    res.json({ ok: true });
  });
  on.get("/info", (_req, res) => {
    res.json({
      version: "0.5.23",
      langgraph_py_version: "0.6.7",
      flags: { assistants: true, crons: false, langsmith: true, langsmith_tracing_replicas: true },
      metadata: { simulated_by: "agent-platform-mock" },
    });
  });
}
