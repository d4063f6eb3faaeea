import { mergeConfig, type ViteUserConfig } from "vitest/config"

// Inside the repository the packages resolve to their TypeScript sources (the `@acx/source`
// export condition; installed packages resolve to dist/), with vite's own default conditions.
const conditions = ["@acx/source", "module", "node", "development|production"]

/** Settings every package's vitest project shares. */
export const shared: ViteUserConfig = {
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: [new URL("./vitest.setup.ts", import.meta.url).pathname],
    testTimeout: 30_000,
    // a poll waits for something to happen, not for it to be fast (speed is the benches'): the
    // default second is too short on a loaded CI machine
    expect: { poll: { timeout: 15_000 } }
  }
}

/**
 * The settings of a package whose test files start no pools, servers or swarms of processes:
 * [`shared`] with its files run in worker threads that do not isolate them (vitest.config.ts:
 * `poolOptions.threads.isolate: false`), one after another in a thread sharing one module graph.
 * Loading Effect and the workspace sources anew for every file cost about a second of CPU per file
 * (a group of 10 such files: 23 → 11 CPU-seconds); their files restore any process-wide state they
 * change. vitest's pool isolation is one setting per pool, not per project, hence the pool. They
 * run after the other projects (`groupOrder` 1): many short files end the run evenly on two
 * cores. The agent, session-store, cli, ui and environment files keep a process each (`forks`,
 * isolated): one file's leftover processes and servers never reach another's.
 */
export const sharedGraph: ViteUserConfig = mergeConfig(shared, {
  test: { pool: "threads", sequence: { groupOrder: 1 } }
})
