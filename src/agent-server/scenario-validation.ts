import type { LoadProblem } from "../core/load-error.js";
import type { SourceDocument } from "../core/read-documents.js";

// Placeholder until scenario files land (issue #4): checks scenario documents against their schema.
export function validateScenarioDocuments(_docs: SourceDocument[]): LoadProblem[] {
  return [];
}
