import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "cli",
      // a scratch ACX_HOME per test file (the files of a worker share one module graph)
      setupFiles: [new URL("../fixtures/src/scratchHomeSetup.ts", import.meta.url).pathname],
      // the end-to-end tests spawn the bundled binary; build it once per run
      globalSetup: [new URL("./test/utils/buildOnce.ts", import.meta.url).pathname]
    }
  })
)
