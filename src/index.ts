export { createApp, mockOf } from "./app.js";
export { startMockServer, ListenError } from "./server.js";
export { inspectorUrl, INSPECTOR_PATH } from "./admin/inspector-routes.js";
export type { MockServer, ServerOptions } from "./server.js";
export type { MockOptions, FixtureDocument, LifecycleMode } from "./options.js";
/** Paths of the bundled fixtures/ and scenarios/ folders (pass them in `fixtures` / `scenarios`). */
export { BUNDLED_FIXTURES, BUNDLED_SCENARIOS } from "./options.js";
export type { MockControl } from "./mock-control.js";
export type { ResetScope } from "./context.js";
export type { JournalEntry, JournalFilter } from "./http/journal.js";
export type { CapturedFeedback, FeedbackFilter } from "./tracing/captured-feedback.js";
export type { ScenarioInput } from "./agent-server/scenario-types.js";
export type { OverrideHandle } from "./agent-server/scenario-registry.js";
export { LoadError } from "./core/load-error.js";
export type { LoadProblem } from "./core/load-error.js";
