import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Servers in tests listen on port 0; nothing is shared between files.
    pool: "forks",
    // One worker per core: the suite is CPU-bound (its spawned CLIs, npm and browsers compute too).
    // On 2 cores, 2 workers took 154 s of CPU and 95 s; 3 took 172 s and 98 s; 4 took 197 s and 110 s.
    maxWorkers: Math.max(2, availableParallelism()),
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
      // Not isolated either: a fresh worker per file cost more than these files share.
      { extends: true, test: { name: "cli", isolate: false, include: ["test/cli/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
  },
});
