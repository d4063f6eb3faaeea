import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts"],
    globalSetup: ["./vitest.globalSetup.ts"],
    // Each file in a process of its own (forks), except in the projects whose files share one
    // module graph (vitest.shared.ts, `sharedGraph`: threads, not isolated). vitest
    // schedules the files: the slowest first by the last run's durations (its cache), by size on
    // a clean clone. Most files wait on real processes (Claude Code, the CLI, hooks, Postgres)
    // more than they compute: two at once keep two cores busy. Timing never decides a verdict.
    pool: "forks",
    poolOptions: { threads: { isolate: false } },
    maxWorkers: 2
  }
})
