export { createApp, mockOf } from "./app.js";
export { startMockServer, ListenError } from "./server.js";
export { inspectorUrl, INSPECTOR_PATH } from "./admin/inspector-routes.js";
export type { MockServer, ServerOptions } from "./server.js";
export type { MockOptions, LifecycleMode } from "./options.js";
/** Paths of the bundled fixtures/ and scenarios/ folders (pass them in `fixtures` / `scenarios`). */
export { BUNDLED_FIXTURES, BUNDLED_SCENARIOS } from "./options.js";
export type { MockControl, WaitOptions, FaultHandle, AdminRun, ClockState, ScenarioSummary } from "./mock-control.js";
/** What the control surface throws besides TypeError and LoadError: a status and the admin API's detail. */
export { ControlError } from "./control-error.js";
/** The control surface of a mock in another process, over `/_mock` (Jest, Playwright, the vitest fixture). */
export { RemoteMock } from "./remote-mock.js";
export type { RemoteControl, RemoteFaultHandle, RemoteOverrideHandle } from "./remote-mock.js";
export type { FaultRule, FaultRuleInput } from "./http/faults.js";
export type { ResetScope } from "./context.js";
/** Typed authoring of inline scenarios and fixtures (editor completion; typos fail to compile). */
export { defineScenario, defineFixtures } from "./define-scenario.js";
// Scenario, fixture, filter and record types are generated from the JSON Schemas (src/schemas).
export type { Ending, Scenario, ScenarioEvent, ScenarioFile, ScenarioInput, ScenarioMatch, Turn } from "./agent-server/index.js";
export type {
  DeepPartial,
  DeploymentFixtureEntry,
  FixtureDocument,
  IntegrationFixtureEntry,
  McpServerFixtureEntry,
  OAuthProviderFixtureEntry,
  RevisionFixtureEntry,
} from "./fixture-types.js";
export type {
  CapturedFeedback,
  Deployment,
  Feedback,
  FeedbackIngestToken,
  FixtureFile,
  Integration,
  OAuthProvider,
  Repository,
  Revision,
} from "./schemas/types.gen.js";
export type { JournalEntry, JournalFilter } from "./http/journal.js";
export type { FeedbackFilter } from "./tracing/index.js";
export type { RunFilter } from "./mock-control.js";
export type { OverrideHandle } from "./agent-server/index.js";
export { LoadError } from "./core/load-error.js";
export type { LoadProblem } from "./core/load-error.js";
