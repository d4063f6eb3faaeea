// Run where the README's app-user line (and then the SDK's) installed: the Effect line acx
// supports is what npm resolved, and both entry points of @acx/storage import and construct.
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const fail = (message) => {
  console.error(`readme.mjs: ${message}`)
  process.exit(1)
}

const effect = require("effect/package.json").version
if (!effect.startsWith("3.")) fail(`npm resolved effect ${effect}; acx supports the Effect 3 line`)
const platform = require("@effect/platform/package.json")
console.log(`effect ${effect}, @effect/platform ${platform.version}`)

const { ClaudeAgentStorage } = await import("@acx/storage/promise")
const { AcontextClient } = await import("@acx/storage")
if (typeof AcontextClient.layerConfig !== "function") fail("@acx/storage has no AcontextClient.layerConfig")
const storage = new ClaudeAgentStorage({ client: { apiKey: "sk-ac-readme", baseUrl: "http://127.0.0.1:9/api/v1" } })
await storage.close()
if (process.argv[2] === "--sdk") {
  const sdk = await import("@anthropic-ai/claude-agent-sdk")
  if (typeof sdk.query !== "function") fail("the Claude Agent SDK has no query()")
  console.log("@anthropic-ai/claude-agent-sdk imports beside @acx/storage")
}
console.log("@acx/storage and @acx/storage/promise import on the README's install")
