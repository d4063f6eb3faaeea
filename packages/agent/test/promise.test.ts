/**
 * The Promise facade on the real Claude Code CLI: sends queued in call order, async iteration,
 * leaving a loop early interrupts the turn, `runOnce`, typed rejections.
 */
import { createAgentSession, isAgentError, runOnce, type Turn } from "@acx/agent/promise"
import type { AgentEvent } from "@acx/convert/AgentEvent"
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import { createSqliteSessionStore } from "@acx/session-store/promise"
import { ClaudeAgentStorage } from "@acx/storage/promise"
import { startAcontextEmulator } from "@acx/testing/AcontextEmulator"
import * as ModelDouble from "@acx/testing/ModelDouble"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { claude, makeWorld, MODEL, sideCalls, TEST_TIMEOUT_MS, textOf, type World } from "./utils/world.js"

const script: ModelDouble.Script = [
  sideCalls,
  { when: ModelDouble.userSays("Hello"), reply: { content: "Hi there." } },
  { when: ModelDouble.userSays("And again"), reply: { content: "Hi again." } },
  {
    when: ModelDouble.userSays("Run the slow command"),
    reply: { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 30" } }] }
  },
  // after an interrupt the CLI sends the interrupted tool's result with the next prompt
  {
    when: (request) => ModelDouble.lastUserText(request)?.includes("After the stop") === true,
    reply: { content: "Still here." }
  },
  { when: ModelDouble.lastMessageHasToolResult, reply: { content: "Stopped." }, times: Infinity },
  { when: ModelDouble.userSays("Once"), reply: { content: "Just once." } }
]

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

const collect = async (iterable: AsyncIterable<AgentEvent>) => {
  const events: Array<AgentEvent> = []
  for await (const event of iterable) events.push(event)
  return events
}

const skipWithout = claude.available ? it : it.skip

describe("@acx/agent/promise", () => {
  skipWithout("sends queue in call order; a loop left early interrupts its turn; onTurnComplete awaits", async () => {
    world = await makeWorld(script)
    const persisted: Array<string> = []
    const session = await createAgentSession({
      cwd: world.cwd,
      model: MODEL,
      env: world.env,
      pathToClaudeCodeExecutable: world.binary,
      sessionStore: null,
      allowedTools: ["Bash"],
      onTurnComplete: async (turn: Turn) => {
        await new Promise((resolve) => setTimeout(resolve, 10))
        persisted.push(typeof turn.prompt === "string" ? turn.prompt : "")
      }
    })
    try {
      const first = session.send("Hello")
      const second = session.send("And again")
      expect(session.isBusy).toBe(true)
      const [a, b] = await Promise.all([collect(second), collect(first)])
      expect(textOf(b)).toBe("Hi there.")
      expect(textOf(a)).toBe("Hi again.")
      expect(persisted).toEqual(["Hello", "And again"])

      for await (const event of session.send("Run the slow command")) {
        if (event._tag === "ToolUse") break
      }
      const after = await session.ask("After the stop")
      expect(textOf(after.events)).toBe("Still here.")
      expect(persisted).toEqual(["Hello", "And again", "Run the slow command", "After the stop"])
      expect(session.usage.turns).toBe(4)
      expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      expect(world.spawns()).toBe(1)
    } finally {
      await session.close()
    }
    await expect(session.ask("Hello")).rejects.toSatisfy((error) => isAgentError(error) && error.reason === "Closed")
  }, TEST_TIMEOUT_MS)

  skipWithout(
    "mirror: the conversation lands in Acontext as it passes; the default store is $ACX_HOME/agent.db",
    async () => {
      world = await makeWorld(script)
      await using emulator = await startAcontextEmulator()
      const storage = new ClaudeAgentStorage({ client: { apiKey: emulator.apiKey, baseUrl: emulator.url } })
      const acxHome = path.join(world.root, "acx-home")
      const session = await createAgentSession({
        cwd: world.cwd,
        model: MODEL,
        env: world.env,
        pathToClaudeCodeExecutable: world.binary,
        acxHome,
        mirror: storage
      })
      await session.ask("Hello")
      await session.ask("And again")
      await session.close()
      await storage.close()
      const stored = (await emulator.messages(storage.sessionId!)).map((message) =>
        message.parts.map((part) => part.text ?? "").join("")
      )
      expect(stored).toEqual(["Hello", "Hi there.", "And again", "Hi again."])
      // no store given: the embedded default, $ACX_HOME/agent.db, holds the transcript
      await using store = createSqliteSessionStore({ filename: path.join(acxHome, "agent.db") })
      const entries = await store.load({ projectKey: encodeProjectDir(world.cwd), sessionId: session.sessionId! })
      expect(JSON.stringify(entries)).toContain("Hi again.")
    },
    TEST_TIMEOUT_MS
  )

  skipWithout("runOnce: one turn in its own process", async () => {
    world = await makeWorld(script)
    const turn = await runOnce("Once", {
      cwd: world.cwd,
      model: MODEL,
      env: world.env,
      pathToClaudeCodeExecutable: world.binary,
      sessionStore: null
    })
    expect(textOf(turn.events)).toBe("Just once.")
    expect(turn.result.subtype).toBe("success")
    expect(world.spawns()).toBe(1)
  }, TEST_TIMEOUT_MS)
})
