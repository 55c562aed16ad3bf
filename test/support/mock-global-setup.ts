import { mockGlobalSetup } from "../../src/vitest-setup.js";

// One mock for the whole test run, as docs/runners.md shows users; test/foundation/vitest-fixture.test.ts
// drives it. Agent-server only (fixtures: false), so it costs the run little.
export default mockGlobalSetup({
  seed: 42,
  fixtures: false,
  scenarios: [{ name: "greets", events: [{ event: "values", data: { said: "hello" } }] }],
});
