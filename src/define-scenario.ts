import type { Scenario } from "./schemas/types.gen.js";
import type { FixtureDocument } from "./fixture-types.js";

/**
 * Returns its argument unchanged: it exists so that a scenario written as a variable is typed where it
 * is written, with editor completion and a compile error for a misspelt key or ending. (A plain
 * `const s = { … }` widens `end: "success"` to `string` and checks nothing until it is passed on.)
 * The mock still validates it at load time (templates, operators, names).
 */
export function defineScenario(scenario: Scenario): Scenario {
  return scenario;
}

/** The same for an inline fixture document (a fixture file's content). */
export function defineFixtures(fixtures: FixtureDocument): FixtureDocument {
  return fixtures;
}
