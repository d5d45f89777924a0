import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "e2e/**/*.test.ts", "bench/**/*.test.ts"],
    globalSetup: ["./scripts/vitest-global-setup.mjs"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
