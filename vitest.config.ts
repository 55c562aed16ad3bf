import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Servers in tests listen on port 0; nothing is shared between files.
    pool: "forks",
    // Many files spend their time waiting (spawned CLIs and installs, the browser, real-time client
    // back-offs), not computing: on a 2-core machine three workers finished in ~65 s where vitest's
    // default took ~95 s with one core mostly idle (CPU time about equal to wall time).
    maxWorkers: Math.max(3, availableParallelism()),
    // Output validation: every response is checked against its route's declared schema.
    env: { AGENT_PLATFORM_MOCK_CHECK_RESPONSES: "1" },
    setupFiles: ["test/support/response-check.setup.ts"],
    // Browser tests skip without a Chromium (test/support/chromium.ts); this says so under the summary.
    reporters: ["default", "./test/support/browser-notice.ts"],
    // One shared mock for the agent-platform-mock/vitest fixture's own test (docs/runners.md).
    globalSetup: ["test/support/mock-global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      // The library and the services through HTTP, in-process.
      { extends: true, test: { name: "unit", isolate: false, include: ["test/**/*.test.ts", "src/**/*.test.ts"], exclude: ["test/cli/**"] } },
      // Spawned processes (the CLI, the packed tarball, Python): slower, so their own project and limits.
      { extends: true, test: { name: "cli", include: ["test/cli/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
  },
});
