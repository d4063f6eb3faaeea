import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts"],
    globalSetup: ["./vitest.globalSetup.ts"],
    // Two pools, neither isolating its files: a worker runs file after file in one module graph
    // instead of loading Effect and the workspace sources anew for each (about 0.7 CPU-seconds a
    // file). `forks` (a child process per worker) for the projects whose files start processes,
    // servers and pools, or `process.chdir`; `threads` for the pure ones (vitest.shared.ts,
    // `sharedGraph`). Every file cleans up what it starts and restores process-wide state it
    // changes. vitest schedules the files: the slowest first by the last run's durations (its
    // cache), by size on a clean clone. Most files wait on real processes (Claude Code, the CLI,
    // hooks, Postgres) more than they compute: two at once keep two cores busy. Timing never
    // decides a verdict.
    pool: "forks",
    poolOptions: { threads: { isolate: false }, forks: { isolate: false } },
    maxWorkers: 2
  }
})
