import { beforeEach } from "vitest";
import type { Express } from "express";
import { createApp, mockOf } from "../../src/index.js";
import type { MockOptions } from "../../src/options.js";

/**
 * The apps tests build most often. `publicUrl` is fixed so URLs in bodies (feedback tokens, Location
 * headers) are the same on every machine and port.
 */
export const PRESETS = {
  /** Bundled fixtures and scenarios, as `npm start` serves them. */
  bundled: { seed: 42, publicUrl: "http://mock.test" },
  /** The agent server alone: no control-plane fixtures to load, only the scenarios the test gives. */
  agentServer: { seed: 11, fixtures: false, publicUrl: "http://mock.test", scenarios: [] },
  /** The tracing service with the bundled scenarios (feedback keys come from them). */
  tracing: { seed: 11, publicUrl: "http://mock.test" },
} satisfies Record<string, MockOptions>;

export type PresetName = keyof typeof PRESETS;

/**
 * One app for the whole test file, reset before each test: building an app compiles nothing again
 * (schemas are compiled once per process) but does load fixtures, so files build it once. `extra`
 * is merged over the preset (scenarios, clock, fixtures).
 */
export function appForFile(preset: PresetName | MockOptions, extra: MockOptions = {}): Express {
  const base: MockOptions = typeof preset === "string" ? PRESETS[preset] : preset;
  const app = createApp({ ...base, ...extra });
  beforeEach(() => mockOf(app).reset());
  return app;
}
