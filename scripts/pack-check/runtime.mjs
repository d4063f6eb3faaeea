// pack-check step 1: in a project where vitest is not installed, the Promise facade and the test
// kits work from the installed tarballs: a conversation saved into the emulator reads back, and
// the stand-in Claude Code CLI runs from the installed @acx/testing.
import { ClaudeAgentStorage } from "@acx/storage/promise"
import { prepareStandInCli, startAcontextEmulator } from "@acx/testing"
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"

const sessionId = randomUUID()
const conversation = [
  { type: "system", subtype: "init", session_id: sessionId },
  { type: "user", uuid: randomUUID(), session_id: sessionId, message: { role: "user", content: "What is 2 + 2?" } },
  {
    type: "assistant",
    uuid: randomUUID(),
    session_id: sessionId,
    message: { id: "msg_1", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "4" }] }
  },
  { type: "result", subtype: "success", session_id: sessionId, is_error: false, result: "4" }
]

const emulator = await startAcontextEmulator()
try {
  const failures = []
  const storage = new ClaudeAgentStorage({
    client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
    onError: (error) => failures.push(error)
  })
  for (const message of conversation) await storage.saveMessage(message)
  await storage.close()
  assert.deepEqual(failures, [])
  assert.equal(storage.sessionId, sessionId)
  const stored = await emulator.messages(sessionId)
  assert.deepEqual(stored.map((message) => message.role), ["user", "assistant"])
  console.log(`runtime: saved ${conversation.length} SDK messages, read back ${stored.length} from the emulator`)
} finally {
  await emulator.close()
}

const init = { type: "system", subtype: "init", session_id: randomUUID(), model: "claude-sonnet-4-5" }
const cli = await prepareStandInCli({ scenario: { steps: [{ emit: init }] } })
try {
  const run = spawnSync(process.execPath, [cli.scriptPath], { env: cli.queryOptions.env, input: "", encoding: "utf8" })
  assert.equal(run.status, 0, run.stderr)
  assert.deepEqual(JSON.parse(run.stdout.trim().split("\n")[0]), init)
  assert.ok((await cli.readLog()).length > 0, "the stand-in logged its run")
  console.log(`runtime: the stand-in CLI ran from ${cli.scriptPath}`)
} finally {
  await cli.cleanup()
}
