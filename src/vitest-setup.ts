import { startMockServer, type ServerOptions } from "./server.js";

/**
 * `agent-platform-mock/vitest/setup`: the globalSetup half of the vitest integration. It must not
 * import vitest (globalSetup runs outside any test), hence its own module; the fixture half is
 * `agent-platform-mock/vitest`.
 */

/** What the globalSetup provides to the tests: `inject("agentPlatformMock")`. */
export interface ProvidedMock {
  url: string;
  tracingUrl: string;
  adminToken?: string;
}

/** What vitest passes a globalSetup function (the part used here). */
export interface GlobalSetupContext {
  provide(key: "agentPlatformMock", value: ProvidedMock): void;
}

/**
 * A vitest globalSetup that starts one mock for the whole run, provides its URLs to the tests and
 * closes it when the run ends. Every test file shares it, so files run one after another
 * (`fileParallelism: false`); for files that run in parallel, start one mock per file with
 * startMockServer instead (docs/runners.md).
 *
 * @example
 * // test/mock-setup.ts, listed in vitest.config.ts: test: { globalSetup: ["test/mock-setup.ts"] }
 * import { mockGlobalSetup } from "agent-platform-mock/vitest/setup";
 * export default mockGlobalSetup({ seed: 42, fixtures: false, scenarios: ["test/scenarios"] });
 */
export function mockGlobalSetup(options: ServerOptions = {}) {
  return async ({ provide }: GlobalSetupContext): Promise<() => Promise<void>> => {
    const mock = await startMockServer(options);
    provide("agentPlatformMock", { url: mock.url, tracingUrl: mock.tracingUrl, adminToken: options.adminToken });
    return () => mock.close();
  };
}
