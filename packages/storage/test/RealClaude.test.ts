/**
 * The real Claude Code CLI (offline, against the model double) under ClaudeAgentStorage: a
 * multi-turn stream with a tool call that really runs, stored in the Acontext emulator through
 * `ClaudeAgentStorage.query` (Effect) and `storage.query` (Promise), every prompt once; and the
 * pitfall those exist for: a plain `query()` without the replay flag carries no prompt at all.
 */
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as ClaudeAgentStorage from "@acx/storage/ClaudeAgentStorage"
import { ClaudeAgentStorage as ClaudeAgentStoragePromise } from "@acx/storage/promise"
import * as AcontextEmulator from "@acx/testing/AcontextEmulator"
import * as ModelDouble from "@acx/testing/ModelDouble"
import { detectClaude, realClaude } from "@acx/testing/RealClaude"
import { promptMessage } from "@acx/testing/StandInCli"
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const claude = await detectClaude()
if (!claude.available) console.warn(`[acx] real Claude Code tests skipped: ${claude.reason}`)

const script: ModelDouble.Script = [
  {
    when: ModelDouble.userSays("Which files"),
    reply: {
      content: [
        { type: "text", text: "Let me list them." },
        { type: "tool_use", name: "Bash", input: { command: "printf 'a.txt\\nb.txt\\n'" } }
      ]
    }
  },
  { when: ModelDouble.lastMessageHasToolResult, reply: { content: "Two files: a.txt and b.txt." } },
  { when: ModelDouble.userSays("Which is bigger"), reply: { content: "They are both empty." } }
]

type Part = { readonly type: string; readonly text?: string }
type Stored = { readonly role: string; readonly parts: ReadonlyArray<Part> }

/** What the emulator should hold for the two turns, in order (empty tool-result text aside). */
const expectConversation = (stored: ReadonlyArray<Stored>) => {
  const shape = stored.map((message) => ({
    role: message.role,
    parts: message.parts.map((part) => part.type === "text" ? `text:${part.text}` : part.type)
  }))
  expect(shape).toEqual([
    { role: "user", parts: ["text:Which files are here?"] },
    { role: "assistant", parts: ["text:Let me list them."] },
    { role: "assistant", parts: ["tool-call"] },
    { role: "user", parts: ["tool-result"] },
    { role: "assistant", parts: ["text:Two files: a.txt and b.txt."] },
    { role: "user", parts: ["text:Which is bigger?"] },
    { role: "assistant", parts: ["text:They are both empty."] }
  ])
}

const world = () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-storage-home-"))
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "acx-real-storage-project-")))
  fs.writeFileSync(path.join(cwd, "a.txt"), "")
  fs.writeFileSync(path.join(cwd, "b.txt"), "")
  return {
    home,
    cwd,
    cleanup: () => {
      fs.rmSync(home, { recursive: true, force: true })
      fs.rmSync(cwd, { recursive: true, force: true })
    }
  }
}

/** Two prompts in one process; the second is sent once the first turn's result has arrived. */
const twoPrompts = () => {
  let firstDone!: () => void
  const first = new Promise<void>((resolve) => (firstDone = resolve))
  const prompts = async function*(): AsyncGenerator<SDKUserMessage> {
    yield promptMessage("Which files are here?") as unknown as SDKUserMessage
    await first
    yield promptMessage("Which is bigger?") as unknown as SDKUserMessage
  }
  return { prompts: prompts(), firstDone }
}

describe.runIf(claude.available)("ClaudeAgentStorage with the real Claude Code CLI", () => {
  it.live(
    "ClaudeAgentStorage.query (Effect): two turns, a real tool call, every prompt once",
    () =>
      Effect.gen(function*() {
        const double = yield* ModelDouble.ModelDouble
        const emulator = yield* AcontextEmulator.AcontextEmulator
        const { cleanup, cwd, home } = world()
        yield* Effect.addFinalizer(() => Effect.sync(cleanup))
        const cli = yield* Effect.promise(() => realClaude({ baseUrl: double.url }))
        const { firstDone, prompts } = twoPrompts()
        const messages = yield* ClaudeAgentStorage.query({
          prompt: prompts,
          options: { ...cli.queryOptions(home), cwd, allowedTools: ["Bash"], model: "claude-sonnet-4-5" }
        }).pipe(
          Stream.tap((message) => Effect.sync(() => message.type === "result" && firstDone())),
          Stream.runCollect
        )
        const results = Chunk.toArray(messages).filter((message) => message.type === "result")
        expect(results.map((result) => result.subtype)).toEqual(["success", "success"])
        // the tool really ran in the project
        expect(JSON.stringify(Chunk.toArray(messages))).toContain("a.txt\\nb.txt")
        const sessionId = results[0]!.session_id
        const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
        expect(yield* storage.sessionId).toBe(sessionId)
        expectConversation((yield* emulator.messages(sessionId)) as unknown as ReadonlyArray<Stored>)
      }).pipe(
        Effect.scoped,
        Effect.provide(
          ClaudeAgentStorage.layer({ onError: "fail" }).pipe(
            Layer.provideMerge(
              Layer.unwrapEffect(
                Effect.map(AcontextEmulator.AcontextEmulator, (emulator) =>
                  AcontextClient.layer({ apiKey: AcontextClient.apiKey(emulator.apiKey), baseUrl: emulator.url }))
              )
            ),
            Layer.provide(NodeHttpClient.layerUndici),
            Layer.provideMerge(Layer.orDie(AcontextEmulator.layer())),
            Layer.provideMerge(Layer.orDie(ModelDouble.layer({ script })))
          )
        )
      ),
    60_000
  )

  it("storage.query (Promise) stores the same conversation; a plain query() loses every prompt", async () => {
    await using double = await ModelDouble.startModelDouble({ script })
    await using emulator = await AcontextEmulator.startAcontextEmulator()
    const { cleanup, cwd, home } = world()
    try {
      const cli = await realClaude({ baseUrl: double.url })
      const options = { ...cli.queryOptions(home), cwd, allowedTools: ["Bash"], model: "claude-sonnet-4-5" }
      const storage = new ClaudeAgentStoragePromise({ client: { apiKey: emulator.apiKey, baseUrl: emulator.url } })
      const { firstDone, prompts } = twoPrompts()
      for await (const message of storage.query({ prompt: prompts, options })) {
        if (message.type === "result") firstDone()
      }
      await storage.close()
      expectConversation((await emulator.messages(storage.sessionId!)) as unknown as ReadonlyArray<Stored>)

      // the pitfall: the same prompts through a plain query() carry no user prompt at all
      double.setScript(script)
      const plain = twoPrompts()
      const seen: Array<{ readonly type: string; readonly isReplay?: boolean }> = []
      for await (const message of query({ prompt: plain.prompts, options })) {
        seen.push(message as (typeof seen)[number])
        if (message.type === "result") plain.firstDone()
      }
      expect(seen.filter((message) => message.type === "result")).toHaveLength(2)
      const prompts2 = seen.filter((message) => message.type === "user" && message.isReplay === true)
      expect(prompts2).toEqual([])
      expect(JSON.stringify(seen)).not.toContain("Which files are here?")
    } finally {
      cleanup()
    }
  }, 60_000)
})
