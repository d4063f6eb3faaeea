import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// a process of its own per file, not `sharedGraph`: ProcessLiveness reads /proc/self, which is
// the process's main thread, asleep while a worker thread runs the test
export default mergeConfig(shared, defineProject({ test: { name: "environment" } }))
