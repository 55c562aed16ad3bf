/** A scenario as written in a scenario file (DESIGN §5); the schema is src/schemas/agent-server/scenario.json. */
export type ScenarioInput = Record<string, unknown>;
