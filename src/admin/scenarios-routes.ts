import express from "express";
import type { MockContext } from "../context.js";
import type { AgentServer } from "../agent-server/index.js";
import { LoadError, type LoadProblem } from "../core/load-error.js";
import { parseDocument } from "../core/read-documents.js";
import type { Scenario } from "../agent-server/scenario-types.js";
import { adminErrors } from "./errors.js";
import type { AdminRoutes } from "./index.js";

/**
 * `GET /_mock/scenarios`, `POST /_mock/scenarios` (a scenario file's content, JSON or YAML: one
 * scenario or a list) and `DELETE /_mock/scenarios/{name}`. A bad upload is refused whole with
 * 422 `{"detail": [{file, pointer, reason}]}`.
 */
export function scenarioAdminRoutes(ctx: MockContext, on: AdminRoutes, agent: AgentServer): void {
  // The admin router leaves these bodies unparsed: they may be YAML.
  const rawBody = express.text({ type: () => true, limit: ctx.options.bodyLimit ?? "1mb" });
  on.get("/scenarios", (_req, res) => {
    const items = agent.scenarios.list().map(describe);
    res.json({ items, count: items.length });
  });
  on.post("/scenarios", rawBody, (req, res) => {
    const text = typeof req.body === "string" ? req.body : "";
    if (!text.trim()) throw adminErrors.badRequest("Send a scenario file's content (JSON or YAML): one scenario or a list of scenarios");
    const json = /json/i.test(req.headers["content-type"] ?? "");
    const problems: LoadProblem[] = [];
    const doc = parseDocument(json ? "<POST /_mock/scenarios>.json" : "<POST /_mock/scenarios>.yaml", text, problems, true);
    try {
      const loaded = agent.scenarios.add(doc ? [doc] : [], problems);
      res.json({ loaded, count: loaded.length });
    } catch (err) {
      if (err instanceof LoadError) throw adminErrors.invalid(err.problems);
      throw err;
    }
  });
  on.delete("/scenarios/:name", (req, res) => {
    const name = String(req.params.name);
    if (!agent.scenarios.remove(name)) throw adminErrors.notFound(`Scenario '${name}'`);
    res.json({ ok: true, name });
  });
}

function describe(s: Scenario) {
  return {
    name: s.name,
    description: s.description ?? null,
    graph_id: s.graph_id ?? null,
    priority: s.priority,
    match: s.match,
    turns: s.turns,
    source: `${s.source.file}#${s.source.pointer}`,
  };
}
