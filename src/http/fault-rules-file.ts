import { LoadError, type LoadProblem } from "../core/load-error.js";
import { readDocuments, type SourceDocument } from "../core/read-documents.js";
import { schemas } from "../schemas/registry.js";
import { pointerOf, reasonOf } from "../store/fixtures.js";
import type { FaultRuleInput } from "./faults.js";

const RULE = "admin/fault.json#/$defs/FaultRuleCreate";

/**
 * Reads fault rules from files (JSON or YAML: one rule or a list) and rule objects, checked like
 * scenarios: a bad one is refused at load with file, JSON pointer and reason, and nothing is added.
 */
export function readFaultRules(inputs: readonly (string | FaultRuleInput)[]): FaultRuleInput[] {
  const problems: LoadProblem[] = [];
  const docs: SourceDocument[] = [];
  let objects = 0;
  for (const input of inputs) {
    if (typeof input === "string") docs.push(...readDocuments([input], problems, true));
    else docs.push({ file: `<fault rule ${++objects}>`, content: input });
  }
  const rules: FaultRuleInput[] = [];
  for (const doc of docs) {
    const list = Array.isArray(doc.content) ? doc.content : [doc.content];
    list.forEach((rule, i) => {
      const prefix = Array.isArray(doc.content) ? `/${i}` : "";
      const copy = structuredClone(rule);
      const errors = schemas().check(RULE, copy);
      if (errors.length) for (const e of errors) problems.push({ file: doc.file, pointer: prefix + pointerOf(e), reason: reasonOf(e) });
      else rules.push(copy as FaultRuleInput);
    });
  }
  if (problems.length) throw new LoadError(problems, "fault rules");
  return rules;
}
