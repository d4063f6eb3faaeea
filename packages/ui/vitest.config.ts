import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "ui",
      // the server under test serves the built assets: build them once per run
      globalSetup: [new URL("./test/utils/buildAssets.ts", import.meta.url).pathname]
    }
  })
)
