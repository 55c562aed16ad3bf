import type { LoadProblem } from "../core/load-error.js";
import type { SourceDocument } from "../core/read-documents.js";
import { copyJson, freezeJson, isPlainObject, toPointer } from "../core/json.js";
import { isUuid } from "../core/random.js";
import { schemas } from "../schemas/registry.js";
import type { ErrorObject } from "ajv";
import { addYamlLines } from "../core/yaml-lines.js";
import { pointerOf, reasonOf } from "../store/fixtures.js";
import { patternProblems } from "./patterns.js";
import { templateProblems } from "./templates.js";
import type { Ending, LoadedScenario, ScenarioMatch, Turn } from "./scenario-types.js";
import { valuesWarnings } from "./values-check.js";
import { DEFAULT_CHANNELS, type Channels } from "./reducers.js";

export const SCENARIO_SCHEMA = "agent-server/scenario.json#/$defs/Scenario";

/**
 * Checks scenario documents (each one scenario or a list) against the scenario schema and, in the
 * same pass, what a schema cannot say: operators and regular expressions in `match`, template
 * expressions, `turns` next to the single-turn shorthand, and a name used twice in one load (a name
 * loaded before is replaced: the registry's job). Every problem of every document is reported at once
 * (a schema error does not hide the template errors next to it); the semantic checks read only the
 * parts that have the right shape. Returns the scenarios only when no problem was found. `graphs`
 * (what `validate` read from the fixtures given with the scenarios) gives the channel reducers of a
 * scenario's graph for its values warnings; without it, or for a scenario naming no graph, every
 * graph is MessagesState.
 */
export function checkScenarioDocuments(docs: readonly SourceDocument[], graphs?: { channels(graphId: string): Channels }): { scenarios: LoadedScenario[]; problems: LoadProblem[]; warnings: LoadProblem[] } {
  const problems: LoadProblem[] = [];
  // What loads but may not be meant: a scripted `values` event the reducers disagree with (values-check.ts).
  const warnings: LoadProblem[] = [];
  const scenarios: LoadedScenario[] = [];
  const names = new Map<string, string>();
  for (const doc of docs) {
    const firstOfDoc = problems.length;
    const firstWarning = warnings.length;
    const items = Array.isArray(doc.content) ? doc.content.map((c, i) => ({ value: c, path: [i] })) : [{ value: doc.content, path: [] as number[] }];
    for (const { value, path } of items) {
      const at = (sub: (string | number)[], reason: string) => problems.push({ file: doc.file, pointer: toPointer([...path, ...sub]), reason });
      const errors = schemas().check(SCENARIO_SCHEMA, value);
      // An if/then failure is already reported by the branch that failed.
      for (const e of errors.filter((x) => x.keyword !== "if")) problems.push({ file: doc.file, pointer: toPointer(path) + pointerOf(e), reason: scenarioReason(e) });
      if (!isPlainObject(value)) continue;
      const name = value.name;
      if (typeof name === "string") {
        if (names.has(name)) at(["name"], `duplicate scenario name "${name}" (also at ${names.get(name)})`);
        names.set(name, `${doc.file}#${toPointer([...path, "name"])}`);
      }
      if (value.turns !== undefined && (value.events !== undefined || value.steps !== undefined || value.end !== undefined || value.faults !== undefined || value.store !== undefined)) {
        at(["turns"], "give either turns or the single-turn shorthand (events, steps, end, faults, store), not both");
      }
      const match = (isPlainObject(value.match) ? value.match : {}) as ScenarioMatch;
      for (const key of ["input", "metadata"] as const) {
        for (const p of patternProblems(match[key], [...path, "match", key])) problems.push({ file: doc.file, pointer: p.pointer, reason: p.reason });
      }
      // Templates are looked for wherever events and endings are, whatever else is wrong with them.
      const turnList = Array.isArray(value.turns) ? value.turns.map((turn, t) => ({ turn: turn as unknown, base: ["turns", t] as (string | number)[] })) : [];
      if (value.turns === undefined) turnList.push({ turn: { events: value.events, steps: value.steps, end: value.end, faults: value.faults, store: value.store }, base: [] });
      for (const { turn, base } of turnList) {
        if (!isPlainObject(turn)) continue;
        // A turn is told one way: scripted events, or graph steps every mode is derived from.
        if (turn.events !== undefined && turn.steps !== undefined) at([...base, "steps"], "give either events or steps in a turn, not both");
        for (const p of templateProblems(turn.steps, [...path, ...base, "steps"])) problems.push({ file: doc.file, pointer: p.pointer, reason: p.reason });
        if (Array.isArray(turn.events)) {
          turn.events.forEach((event, e) => {
            for (const p of templateProblems(event, [...path, ...base, "events", e])) problems.push({ file: doc.file, pointer: p.pointer, reason: p.reason });
          });
        }
        for (const p of templateProblems(turn.end, [...path, ...base, "end"])) problems.push({ file: doc.file, pointer: p.pointer, reason: p.reason });
        for (const p of templateProblems(turn.store, [...path, ...base, "store"])) problems.push({ file: doc.file, pointer: p.pointer, reason: p.reason });
      }
      if (errors.length || typeof name !== "string") continue;
      const graph = (value.graph_id as string | undefined) ?? (match.assistant_id && !isUuid(match.assistant_id) ? match.assistant_id : undefined);
      warnings.push(...valuesWarnings(doc.file, path, value, graph !== undefined && graphs ? graphs.channels(graph) : DEFAULT_CHANNELS));
      const turns: Turn[] = (value.turns as Turn[] | undefined) ?? [
        {
          events: value.events as Turn["events"],
          ...(value.steps === undefined ? {} : { steps: value.steps as Turn["steps"] }),
          end: value.end as Ending | undefined,
          ...(value.faults === undefined ? {} : { faults: value.faults as Turn["faults"] }),
          ...(value.store === undefined ? {} : { store: value.store as Turn["store"] }),
        },
      ];
      scenarios.push({
        name,
        description: value.description as string | undefined,
        graph_id: graph,
        priority: (value.priority as number | undefined) ?? 0,
        once: value.once === true,
        match,
        // Frozen copies: every run of a turn without templates shares its parts (templates.ts), and
        // objects a caller passed in stay theirs to change.
        turns: freezeJson(copyJson(turns)),
        source: { file: doc.file, pointer: toPointer(path) },
      });
    }
    if (doc.yaml !== undefined && problems.length > firstOfDoc) addYamlLines(doc.yaml, problems.slice(firstOfDoc));
    if (doc.yaml !== undefined && warnings.length > firstWarning) addYamlLines(doc.yaml, warnings.slice(firstWarning));
  }
  return { scenarios: problems.length ? [] : scenarios, problems, warnings };
}

/** Checks scenario documents without loading them: the problems (warnings: checkScenarioDocuments). */
export function validateScenarioDocuments(docs: SourceDocument[]): LoadProblem[] {
  return checkScenarioDocuments(docs).problems;
}

/** The schema's reason, said in the scenario's own words where the schema's would be cryptic. */
function scenarioReason(e: ErrorObject): string {
  if (e.keyword === "pattern" && e.instancePath.endsWith("/event")) {
    return `not a stream event name; use values, updates, messages, messages/partial, messages/complete, messages/metadata, custom, events, debug, tasks, checkpoints or tools, optionally followed by |<namespace> parts; got ${JSON.stringify(e.data)}`;
  }
  if (e.keyword === "not" && /\/steps\/\d+\/node$/.test(e.instancePath)) return `"__start__", "__end__" and "__interrupt__" are LangGraph's own names, not a node of the graph; got ${JSON.stringify(e.data)}`;
  if (e.keyword === "pattern" && e.instancePath.endsWith("/name")) return `names use letters, digits, ".", "_" and "-" (at most 128); got ${JSON.stringify(e.data)}`;
  return reasonOf(e);
}
