import { inject, test as base } from "vitest";
import { RemoteMock } from "./remote-mock.js";
import type { ProvidedMock } from "./vitest-setup.js";

/**
 * `agent-platform-mock/vitest`: a `mock` fixture that hands each test the run's mock, reset. The mock
 * is started once per run by `mockGlobalSetup` (`agent-platform-mock/vitest/setup`). See docs/runners.md.
 *
 * @example
 * // vitest.config.ts: test: { globalSetup: ["test/mock-setup.ts"] }
 * // test/mock-setup.ts
 * import { mockGlobalSetup } from "agent-platform-mock/vitest/setup";
 * export default mockGlobalSetup({ seed: 42, fixtures: false, scenarios: ["test/scenarios"] });
 * // a test
 * import { test } from "agent-platform-mock/vitest";
 * test("…", async ({ mock }) => { new Client({ apiUrl: mock.url }); … await mock.waitFor.feedback({ key: "liked" }) });
 *
 * `mock` is a RemoteMock: the whole control surface of the library (`use()`, `waitFor`, faults, the
 * clock, deployment controls, reset by scope, …) over `/_mock`, each method a promise.
 */

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by mockGlobalSetup(): where the run's mock listens. */
    agentPlatformMock: ProvidedMock;
  }
}

/** The run's mock as the globalSetup provided it, driven over HTTP (tests run in other processes). */
export function injectMock(): RemoteMock {
  const provided = inject("agentPlatformMock");
  if (!provided) throw new Error("agent-platform-mock: no mock was provided; add a globalSetup file that exports mockGlobalSetup(…) (docs/runners.md)");
  return new RemoteMock(provided.url, provided.tracingUrl, provided.adminToken);
}

/**
 * vitest's `test` with a `mock` fixture: the run's mock, reset before the test uses it. Test files run
 * in parallel share that one mock, so a reset in one file clears another's state: run such files
 * with `fileParallelism: false`, or start a mock per file with startMockServer (docs/runners.md).
 */
export const test = base.extend<{ mock: RemoteMock }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
  mock: async ({}, use) => {
    const mock = injectMock();
    await mock.reset();
    await use(mock);
  },
});

export { RemoteMock } from "./remote-mock.js";
export type { RemoteControl, RemoteFaultHandle, RemoteOverrideHandle } from "./remote-mock.js";
export { ControlError } from "./control-error.js";
