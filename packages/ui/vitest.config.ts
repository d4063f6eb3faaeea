import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "ui",
      // a scratch ACX_HOME per test file (the files of a worker share one module graph)
      setupFiles: [new URL("../fixtures/src/scratchHomeSetup.ts", import.meta.url).pathname],
      globalSetup: [
        // the server under test serves the built assets: build them once per run
        new URL("./test/utils/buildAssets.ts", import.meta.url).pathname,
        // the `ui.*` tests start `acx ui` (and `acx sync`, `acx stats`, …) from the CLI's bundle,
        // as a user does: bundle it once per run, as the CLI's own tests do
        new URL("../cli/test/utils/buildOnce.ts", import.meta.url).pathname
      ]
    }
  })
)
