import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts"],
    globalSetup: ["./vitest.globalSetup.ts"],
    // Most test files wait on real processes (Claude Code, the CLI, hooks, Postgres) far more than
    // they compute: two at once keep two cores busy. Timing never decides a test's outcome.
    maxWorkers: 2
  }
})
