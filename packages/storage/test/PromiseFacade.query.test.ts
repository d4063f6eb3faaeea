/**
 * `storage.query()` of the Promise facade: the real SDK's `query()` driving the stand-in Claude
 * Code CLI, every message stored in the emulator as it passes and yielded unchanged, the CLI
 * asked to echo prompts, so each prompt is stored once.
 */
import { ClaudeAgentStorage } from "@acx/storage/promise"
import { prepareStandInCli, promptStream, realisticConversation, startAcontextEmulator } from "@acx/testing"
import { describe, expect, it } from "@effect/vitest"

type Block = { readonly type: string; readonly text?: string }

const run = async (prompt: "string" | "stream") => {
  const conversation = realisticConversation({ prompts: ["Why does the build fail on Node 20?"] })
  const scenario = {
    ...conversation.scenario,
    steps: [{ expectArgs: { includes: ["--replay-user-messages"] } }, ...conversation.scenario.steps]
  }
  const cli = await prepareStandInCli({ scenario })
  const emulator = await startAcontextEmulator()
  try {
    const failures: Array<unknown> = []
    const storage = new ClaudeAgentStorage({
      client: { apiKey: emulator.apiKey, baseUrl: emulator.url },
      onError: (error) => void failures.push(error)
    })
    const yielded: Array<unknown> = []
    const text = conversation.promptMessages[0]!.message.content[0].text
    for await (
      const message of storage.query({
        prompt: prompt === "string" ? text : promptStream(conversation.promptMessages),
        options: cli.queryOptions
      })
    ) yielded.push(message)
    await storage.close()
    const stored = await emulator.messages(conversation.sessionId)
    return { conversation, failures, stored, text, yielded, sessionId: storage.sessionId, cli }
  } finally {
    await emulator.close()
    await cli.cleanup()
  }
}

describe("ClaudeAgentStorage.query (Promise facade)", () => {
  it("yields the SDK's messages unchanged and stores the conversation, the prompt once", async () => {
    const { conversation, failures, sessionId, stored, text, yielded } = await run("stream")
    expect(failures).toEqual([])
    expect(yielded).toEqual(conversation.expectedFrames)
    expect(sessionId).toBe(conversation.sessionId)
    const blocks = stored.flatMap((message) => message.parts as unknown as ReadonlyArray<Block>)
    expect(blocks.filter((block) => block.type === "text" && block.text === text)).toHaveLength(1)
    expect(stored[0]!.role).toBe("user")
    expect(stored.at(-1)!.role).toBe("assistant")
  }, 30_000)

  it("a plain string prompt is stored once too, from the CLI's replay", async () => {
    const { failures, stored, text } = await run("string")
    expect(failures).toEqual([])
    const blocks = stored.flatMap((message) => message.parts as unknown as ReadonlyArray<Block>)
    expect(blocks.filter((block) => block.type === "text" && block.text === text)).toHaveLength(1)
  }, 30_000)
})
