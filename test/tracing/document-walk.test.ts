import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp, mockOf } from "../../src/index.js";
import { ReferenceDocument } from "../support/reference-document.js";

/**
 * Every operation of the tracing service's document (tracing-feedback.openapi.json) is served: each is
 * called for its documented success and for its documented 422, and each body is checked against the
 * schema the document gives for that status.
 */
describe("the tracing document, operation by operation", () => {
  const reference = new ReferenceDocument("tracing-feedback.openapi.json");
  const app = createApp({ seed: 8, fixtures: false });
  const RUN = "0198c0de-0000-7000-8000-000000000001";
  const seen = new Map<string, Set<number>>();

  async function call(operation: string, url: string, send?: unknown): Promise<request.Response> {
    const [method] = operation.split(" ") as [string];
    const req = request(app)[method.toLowerCase() as "get"](url);
    const res = send === undefined ? await req : await req.send(send as object);
    expect(reference.check(operation, res.status, res.status === 204 ? undefined : res.body), `${operation} ${url}`).toEqual([]);
    (seen.get(operation) ?? seen.set(operation, new Set()).get(operation)!).add(res.status);
    return res;
  }

  it("answers each documented success and validation error in the documented shapes", async () => {
    await call("GET /api/v1/info", "/api/v1/info");
    const token = (await call("POST /api/v1/feedback/tokens", "/api/v1/feedback/tokens", { run_id: RUN, feedback_key: "k" })).body;
    await call("POST /api/v1/feedback/tokens", "/api/v1/feedback/tokens", { run_id: "x" });
    await call("GET /api/v1/feedback/tokens", `/api/v1/feedback/tokens?run_id=${RUN}`);
    await call("GET /api/v1/feedback/tokens", "/api/v1/feedback/tokens");
    await call("POST /api/v1/feedback/tokens/{token}", `/api/v1/feedback/tokens/${token.id}`, { score: 1 });
    await call("POST /api/v1/feedback/tokens/{token}", "/api/v1/feedback/tokens/nope", { score: 1 });
    await call("GET /api/v1/feedback/tokens/{token}", `/api/v1/feedback/tokens/${token.id}?score=0`);
    await call("GET /api/v1/feedback/tokens/{token}", "/api/v1/feedback/tokens/nope");
    const feedback = (await call("POST /api/v1/feedback", "/api/v1/feedback", { key: "k", run_id: RUN, score: 1 })).body;
    await call("POST /api/v1/feedback", "/api/v1/feedback", { run_id: RUN });
    await call("POST /api/v1/feedback/eager", "/api/v1/feedback/eager", { key: "k", run_id: RUN });
    await call("POST /api/v1/feedback/eager", "/api/v1/feedback/eager", {});
    await call("GET /api/v1/feedback", `/api/v1/feedback?run=${RUN}`);
    await call("GET /api/v1/feedback", "/api/v1/feedback?limit=0");
    await call("GET /api/v1/feedback/{feedback_id}", `/api/v1/feedback/${feedback.id}`);
    await call("GET /api/v1/feedback/{feedback_id}", "/api/v1/feedback/nope");
    await call("PATCH /api/v1/feedback/{feedback_id}", `/api/v1/feedback/${feedback.id}`, { score: 0 });
    await call("PATCH /api/v1/feedback/{feedback_id}", "/api/v1/feedback/nope", { score: 0 });
    await call("DELETE /api/v1/feedback/{feedback_id}", `/api/v1/feedback/${feedback.id}`);
    await call("DELETE /api/v1/feedback/{feedback_id}", "/api/v1/feedback/nope");
    const formula = { feedback_key: "f", aggregation_type: "sum", formula_parts: [{ part_type: "weighted_key", weight: 1, key: "k" }] };
    const created = (await call("POST /api/v1/feedback/formulas", "/api/v1/feedback/formulas", formula)).body;
    await call("POST /api/v1/feedback/formulas", "/api/v1/feedback/formulas", { ...formula, aggregation_type: "max" });
    await call("GET /api/v1/feedback/formulas", "/api/v1/feedback/formulas");
    await call("GET /api/v1/feedback/formulas", "/api/v1/feedback/formulas?limit=x");
    await call("GET /api/v1/feedback/formulas/{feedback_formula_id}", `/api/v1/feedback/formulas/${created.id}`);
    await call("GET /api/v1/feedback/formulas/{feedback_formula_id}", "/api/v1/feedback/formulas/nope");
    await call("PUT /api/v1/feedback/formulas/{feedback_formula_id}", `/api/v1/feedback/formulas/${created.id}`, formula);
    await call("PUT /api/v1/feedback/formulas/{feedback_formula_id}", `/api/v1/feedback/formulas/${created.id}`, {});
    await call("DELETE /api/v1/feedback/formulas/{feedback_formula_id}", `/api/v1/feedback/formulas/${created.id}`);
    await call("DELETE /api/v1/feedback/formulas/{feedback_formula_id}", "/api/v1/feedback/formulas/nope");
    await call("POST /api/v1/feedback-configs", "/api/v1/feedback-configs", { feedback_key: "c", feedback_config: { type: "freeform" } });
    await call("POST /api/v1/feedback-configs", "/api/v1/feedback-configs", { feedback_key: "c" });
    await call("GET /api/v1/feedback-configs", "/api/v1/feedback-configs");
    await call("GET /api/v1/feedback-configs", "/api/v1/feedback-configs?limit=0");
    await call("PATCH /api/v1/feedback-configs", "/api/v1/feedback-configs", { feedback_key: "c", is_lower_score_better: true });
    await call("PATCH /api/v1/feedback-configs", "/api/v1/feedback-configs", {});
    await call("DELETE /api/v1/feedback-configs", "/api/v1/feedback-configs?feedback_key=c");
    await call("DELETE /api/v1/feedback-configs", "/api/v1/feedback-configs");

    // Every operation of the document was called, for a 2xx and (where the document has one) its 422.
    expect([...seen.keys()].sort()).toEqual(reference.operations().sort());
    for (const [operation, statuses] of seen) {
      expect([...statuses].some((s) => s < 300), `${operation} success`).toBe(true);
      if (operation !== "GET /api/v1/info") expect(statuses.has(422), `${operation} 422`).toBe(true);
    }
    // Two token submissions, one by POST /feedback (deleted again), one eager.
    expect(mockOf(app).feedback().length).toBe(3);
  });
});
