// pack-check step 4: with only @acx/storage and its required peers installed, both entry points
// import, and the facade reports a missing outbox driver as a typed error naming the package.
import * as Storage from "@acx/storage"
import { ClaudeAgentStorage } from "@acx/storage/promise"
import assert from "node:assert/strict"

assert.equal(typeof Storage.AcontextClient.make, "function")
assert.equal(typeof Storage.ClaudeAgentStorage.layer, "function")
assert.equal(typeof ClaudeAgentStorage, "function")

const storage = new ClaudeAgentStorage({
  client: { apiKey: "sk-unused", baseUrl: "http://127.0.0.1:9/api/v1" },
  outbox: "outbox.db",
  onError: () => {}
})
const failure = await storage.saveMessage({ type: "system", subtype: "init", session_id: crypto.randomUUID() })
  .then(() => storage.flush()).then(() => undefined, (error) => error)
await storage.close().catch(() => {})
assert.ok(failure, "an outbox without its driver must fail")
assert.match(String(failure.message ?? failure), /@effect\/sql-sqlite-node/)
console.log("minimal: @acx/storage and @acx/storage/promise import; the outbox names its missing driver")
