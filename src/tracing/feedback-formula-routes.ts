import type { MockContext } from "../context.js";
import { formatTimestamp } from "../core/clock.js";
import { listOf, object, route, UUID, type RouteSpec } from "../http/route.js";
import { tracingErrors } from "./errors.js";
import { declareCollection } from "../store/store.js";

const F = "tracing/feedback-formula.json#/$defs/";
const FORMULA_PATH = object({ feedback_formula_id: UUID });

interface FormulaPart {
  part_type: "weighted_key";
  weight: number;
  key: string;
}

export interface FeedbackFormula {
  dataset_id: string | null;
  session_id: string | null;
  feedback_key: string;
  aggregation_type: "sum" | "avg";
  formula_parts: FormulaPart[];
  id: string;
  /** Epoch ms, formatted only by `formulaResponse`. */
  created_at: number;
  modified_at: number;
}

/** The `FeedbackFormula` wire form (schema tracing/feedback-formula.json#/$defs/FeedbackFormula). */
function formulaResponse(f: FeedbackFormula) {
  return { ...f, created_at: formatTimestamp(f.created_at), modified_at: formatTimestamp(f.modified_at) };
}

type FormulaCreate = Pick<FeedbackFormula, "feedback_key" | "aggregation_type" | "formula_parts"> & { dataset_id?: string | null; session_id?: string | null };

/**
 * `/feedback/formulas`: feedback keys computed from others (a weighted sum or average), scoped to a
 * dataset or a tracing project. Declared before `/feedback/{feedback_id}` so the literal path is never
 * taken for an id.
 */
export function feedbackFormulaRoutes(ctx: MockContext): RouteSpec[] {
  const formulas = () => feedbackFormulasIn(ctx);
  const existing = (id: string) => {
    const formula = formulas().get(id);
    if (!formula) throw tracingErrors.feedbackFormulaNotFound();
    return formula;
  };
  return [
    route<{ query: { dataset_id?: string | null; session_id?: string | null; limit: number; offset: number } }>({
      name: "feedback_formulas.list",
      method: "GET",
      path: "/feedback/formulas",
      query: `${F}FeedbackFormulaListQuery`,
      responses: { 200: listOf(`${F}FeedbackFormula`) },
      handler: ({ query }) =>
        formulas()
          .filter((f) => (query.dataset_id == null || f.dataset_id === query.dataset_id) && (query.session_id == null || f.session_id === query.session_id))
          .slice(query.offset, query.offset + query.limit)
          .map(formulaResponse),
    }),
    route<{ body: FormulaCreate }>({
      name: "feedback_formulas.create",
      method: "POST",
      path: "/feedback/formulas",
      body: `${F}FeedbackFormulaCreate`,
      responses: { 200: `${F}FeedbackFormula` },
      handler: ({ body }) => {
        const at = ctx.clock.now();
        const formula: FeedbackFormula = {
          dataset_id: body.dataset_id ?? null,
          session_id: body.session_id ?? null,
          feedback_key: body.feedback_key,
          aggregation_type: body.aggregation_type,
          formula_parts: body.formula_parts,
          id: ctx.random.uuid4(),
          created_at: at,
          modified_at: at,
        };
        return formulaResponse(formulas().set(formula.id, formula));
      },
    }),
    route<{ params: { feedback_formula_id: string } }>({
      name: "feedback_formulas.get",
      method: "GET",
      path: "/feedback/formulas/{feedback_formula_id}",
      params: FORMULA_PATH,
      responses: { 200: `${F}FeedbackFormula` },
      handler: ({ params }) => formulaResponse(existing(params.feedback_formula_id)),
    }),
    route<{ params: { feedback_formula_id: string }; body: Pick<FeedbackFormula, "feedback_key" | "aggregation_type" | "formula_parts"> }>({
      name: "feedback_formulas.update",
      method: "PUT",
      path: "/feedback/formulas/{feedback_formula_id}",
      params: FORMULA_PATH,
      body: `${F}FeedbackFormulaUpdate`,
      responses: { 200: `${F}FeedbackFormula` },
      handler: ({ params, body }) => {
        const formula = existing(params.feedback_formula_id);
        return formulaResponse(formulas().set(formula.id, { ...formula, ...body, modified_at: ctx.clock.now() }));
      },
    }),
    route<{ params: { feedback_formula_id: string } }>({
      name: "feedback_formulas.delete",
      method: "DELETE",
      path: "/feedback/formulas/{feedback_formula_id}",
      params: FORMULA_PATH,
      responses: { 200: { type: "object", maxProperties: 0 } },
      handler: ({ params }) => {
        formulas().delete(existing(params.feedback_formula_id).id);
        return {};
      },
    }),
  ];
}

export const feedbackFormulasIn = declareCollection<FeedbackFormula>("feedback_formulas");
