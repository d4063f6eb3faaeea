import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "cli",
      // the end-to-end tests spawn the bundled binary; build it once per run
      globalSetup: [new URL("./test/utils/buildOnce.ts", import.meta.url).pathname]
    }
  })
)
