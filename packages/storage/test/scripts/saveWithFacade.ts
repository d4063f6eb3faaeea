/**
 * A plain script using the Promise facade as an app does: `ClaudeAgentStorage` built from the
 * JSON options in argv[2] (its `client` settings, or none: everything from the environment),
 * then a session's init, a prompt and an answer saved, then closed. Prints the Acontext session
 * id on stdout; whatever the facade warns goes to stderr untouched.
 *
 * With a JSON array in argv[2] it runs several apps one after another, each
 * `{ options, env, sessionId }` with exactly the Acontext variables of its `env` set in this
 * process before its facade is built (the facade reads them at construction), and prints one
 * JSON line per app: `{ "sessionId" }`, or `{ "error" }` with the message the constructor threw.
 */
import { ClaudeAgentStorage } from "@acx/storage/promise"

type Options = ConstructorParameters<typeof ClaudeAgentStorage>[0]

const save = async (options: Options, sessionId: string) => {
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
  return storage.sessionId
}

const given = JSON.parse(process.argv[2] ?? "{}") as
  | Options
  | ReadonlyArray<{ readonly options: Options; readonly env: Record<string, string>; readonly sessionId: string }>

if (Array.isArray(given)) {
  for (const app of given) {
    for (const name of Object.keys(process.env)) if (name.startsWith("ACONTEXT_")) delete process.env[name]
    Object.assign(process.env, app.env)
    try {
      console.log(JSON.stringify({ sessionId: await save(app.options, app.sessionId) }))
    } catch (error) {
      console.log(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }))
    }
  }
} else {
  console.log(await save(given as Options, process.argv[3] ?? "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"))
}
