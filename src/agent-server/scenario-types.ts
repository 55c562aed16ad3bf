import type { Ending, Scenario, ScenarioEvent, ScenarioFile, ScenarioMatch, Turn } from "../schemas/types.gen.js";

// What a scenario file says is typed by the schema (src/schemas/agent-server/scenario.json) through
// the generated types; only the loaded form below is this module's own.
export type { Ending, Scenario, ScenarioEvent, ScenarioFile, ScenarioMatch, Turn };

/** A scenario object as passed to createApp/startMockServer/loadScenarios: exactly a file's scenario. */
export type ScenarioInput = Scenario;

/** A loaded scenario: the file's content, checked, with its single-turn shorthand expanded. */
export type LoadedScenario = Pick<Scenario, "name" | "description" | "graph_id"> & {
  /** The schema's default (0) filled in. */
  priority: number;
  /** Serves one run, then stops matching. */
  once: boolean;
  match: ScenarioMatch;
  turns: Turn[];
  /** File (or `<scenario object n>`) it came from, and its JSON pointer there. */
  source: { file: string; pointer: string };
};
