import { afterAll, afterEach, beforeAll, beforeEach, vi, type MockInstance } from "vitest";
import { startMockServer, type MockServer } from "../../src/index.js";

/** A mock that tracing clients send to, and spies on what they print; filled in by the describe block's hooks. */
export interface TracedMock {
  mock: MockServer;
  errors: MockInstance;
  warnings: MockInstance;
}

/**
 * Registers the hooks of a file whose tracing clients (langsmith, LangChain's tracer) point at one mock:
 * reset between tests, console.error and console.warn spied on (a client that fails says so there).
 */
export function tracedMock(): TracedMock {
  const t = {} as TracedMock;
  beforeAll(async () => {
    t.mock = await startMockServer({ port: 0, seed: 27, apiKey: "ls-key" });
  });
  afterAll(() => t.mock.close());
  beforeEach(() => {
    t.mock.reset();
    t.errors = vi.spyOn(console, "error");
    t.warnings = vi.spyOn(console, "warn");
  });
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.LANGSMITH_DISABLE_RUN_COMPRESSION;
  });
  return t;
}
