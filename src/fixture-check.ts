import { MockContext } from "./context.js";
import type { LoadProblem } from "./core/load-error.js";
import { readFixtures } from "./store/fixtures.js";
import { controlPlaneState, seedControlPlane } from "./control-plane/seed.js";
import { GraphCatalog } from "./agent-server/graphs.js";

/**
 * Every check a mock makes of its fixture files when it starts, without building the mock: the
 * reading of the files, then the seed steps that check entries, in createApp()'s order (the control
 * plane's, then the agent server's graphs), on a throwaway context. `validate` runs this, so it loads
 * neither the server nor the routes. Returns the problems of every file at once, and the graphs the
 * files describe (their channel reducers check the scenarios' scripted values).
 */
export function checkFixtureFiles(files: string[]): { problems: LoadProblem[]; graphs: GraphCatalog } {
  const ctx = new MockContext({ seed: "validate", fixtures: files, scenarios: [] });
  try {
    const fixtures = readFixtures(files);
    seedControlPlane(ctx, fixtures, controlPlaneState(ctx));
    const graphs = new GraphCatalog();
    graphs.seed(fixtures);
    return { problems: fixtures.problems, graphs };
  } finally {
    ctx.close();
  }
}
