import { defineProject, mergeConfig } from "vitest/config"
import { sharedGraph } from "../../vitest.shared.js"

export default mergeConfig(sharedGraph, defineProject({ test: { name: "convert" } }))
