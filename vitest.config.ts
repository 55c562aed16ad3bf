import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Servers in tests listen on port 0; nothing is shared between files.
    pool: "forks",
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
