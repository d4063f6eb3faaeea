/**
 * A plain script using the Promise facade as an app does: `ClaudeAgentStorage` built from the
 * JSON options in argv[2] (its `client` settings, or none: everything from the environment),
 * then a session's init, a prompt and an answer saved, then closed. Prints the Acontext session
 * id on stdout; whatever the facade warns goes to stderr untouched.
 */
import { ClaudeAgentStorage } from "@acx/storage/promise"

const options = JSON.parse(process.argv[2] ?? "{}") as ConstructorParameters<typeof ClaudeAgentStorage>[0]
const sessionId = process.argv[3] ?? "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

const storage = new ClaudeAgentStorage(options)
try {
  await storage.saveMessage({ type: "system", subtype: "init", session_id: sessionId })
  await storage.saveMessage({ type: "user", message: { role: "user", content: "What is 1+1?" } })
  await storage.saveMessage({
    type: "assistant",
    message: { role: "assistant", content: [{ type: "text", text: "2" }], model: "claude-sonnet-4-5" }
  })
} finally {
  await storage.close()
}
console.log(storage.sessionId)
