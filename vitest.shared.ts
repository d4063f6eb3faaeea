import type { ViteUserConfig } from "vitest/config"

/** Settings every package's vitest project shares. */
export const shared: ViteUserConfig = {
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: [new URL("./vitest.setup.ts", import.meta.url).pathname],
    testTimeout: 30_000
  }
}
