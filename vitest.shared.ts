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
 * [`shared`] with its files run in worker threads (vitest.config.ts: neither pool isolates its
 * files), one after another in a thread sharing one module graph. They run after the other
 * projects (`groupOrder` 1): many short files end the run evenly on two cores. The agent,
 * session-store, cli, ui and environment files run in child processes (`forks`), which may
 * `process.chdir` and read `/proc/self` as their own.
 */
export const sharedGraph: ViteUserConfig = mergeConfig(shared, {
  test: { pool: "threads", sequence: { groupOrder: 1 } }
})
