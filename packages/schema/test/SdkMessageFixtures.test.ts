/**
 * Decodes the real-world fixtures (`packages/fixtures/data`): every SDK stream message, and every
 * user/assistant transcript entry's `message` wrapped as an SDK message. Nothing may fail, and
 * nothing may fall into Unknown — neither a message nor any content block (tool_result items
 * included).
 */
import * as Fixtures from "@acx/fixtures"
import { ContentBlock, SdkMessage } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult } from "effect"

interface Sample {
  readonly where: string
  readonly input: unknown
}

const streamSamples: ReadonlyArray<Sample> = Fixtures.sdkMessages().map((m) => ({
  where: `${Fixtures.relative(m.file)}:${m.line}`,
  input: m.value
}))

const transcriptSamples: ReadonlyArray<Sample> = Fixtures.transcriptEntries().flatMap((e): Array<Sample> => {
  const entry = e.value as { type?: unknown; message?: unknown; uuid?: unknown; sessionId?: unknown }
  if (entry.type !== "user" && entry.type !== "assistant") return []
  return [{
    where: `${Fixtures.relative(e.file)}:${e.line}`,
    input: {
      type: entry.type,
      message: entry.message,
      uuid: entry.uuid,
      session_id: entry.sessionId,
      parent_tool_use_id: null
    }
  }]
})

/** Every content block of a known message (assistant/user `message.content`, stream blocks). */
const blocksOf = (message: SdkMessage.KnownSdkMessage): ReadonlyArray<ContentBlock.ContentBlock> => {
  switch (message.type) {
    case "assistant":
    case "user": {
      const content = message.message.content
      return typeof content === "string" ? [] : content
    }
    case "stream_event": {
      const event = message.event
      if (event.type === "content_block_start" && "content_block" in event) {
        return [event.content_block as ContentBlock.ContentBlock]
      }
      if (event.type === "message_start" && "message" in event) return (event.message as SdkMessage.BetaMessage).content
      return []
    }
    default:
      return []
  }
}

interface Tally {
  messages: number
  blocks: number
  items: number
  readonly kinds: Map<string, number>
  readonly blockTypes: Map<string, number>
  readonly problems: Array<string>
}

const check = (samples: ReadonlyArray<Sample>): Tally => {
  const tally: Tally = { messages: 0, blocks: 0, items: 0, kinds: new Map(), blockTypes: new Map(), problems: [] }
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)
  for (const { input, where } of samples) {
    const result = SdkMessage.decode(input)
    if (Either.isLeft(result)) {
      tally.problems.push(`${where}: decode failed\n${ParseResult.TreeFormatter.formatErrorSync(result.left)}`)
      continue
    }
    const message = result.right
    tally.messages++
    if (!SdkMessage.isKnown(message)) {
      const known = SdkMessage.decodeKnown(input)
      const why = Either.isLeft(known) ? ParseResult.TreeFormatter.formatErrorSync(known.left) : ""
      tally.problems.push(`${where}: Unknown message (type ${message.type})\n${why}`)
      continue
    }
    bump(tally.kinds, "subtype" in message ? `${message.type}/${message.subtype}` : message.type)
    for (const block of blocksOf(message)) {
      tally.blocks++
      bump(tally.blockTypes, block.type)
      if (!ContentBlock.isKnownBlock(block)) {
        tally.problems.push(`${where}: Unknown content block (type ${block.type}) ${JSON.stringify(block)}`)
        continue
      }
      if (block.type === "tool_result") {
        const content = (block as ContentBlock.ToolResultBlock).content
        if (content === undefined || typeof content === "string") continue
        for (const item of content) {
          tally.items++
          if (!ContentBlock.isKnownToolResultContentItem(item)) {
            tally.problems.push(`${where}: Unknown tool_result item (type ${item.type})`)
          }
        }
      }
    }
  }
  return tally
}

const summary = (tally: Tally): string =>
  `${tally.messages} messages, ${tally.blocks} blocks, ${tally.items} tool_result items; ` +
  `kinds ${JSON.stringify(Object.fromEntries(tally.kinds))}; blocks ${
    JSON.stringify(Object.fromEntries(tally.blockTypes))
  }`

describe(
  "SdkMessage fixtures",
  () => {
    it(`SDK stream messages: all ${streamSamples.length} decode as known, blocks known`, () => {
      const tally = check(streamSamples)
      console.log(`[SdkMessage fixtures] sdk-streams: ${summary(tally)}`)
      expect(tally.problems).toEqual([])
      expect(tally.messages).toBe(streamSamples.length)
      expect(streamSamples.length).toBeGreaterThan(0)
    })

    it(`transcript user/assistant entries: all ${transcriptSamples.length} decode as known, blocks known`, () => {
      const tally = check(transcriptSamples)
      console.log(`[SdkMessage fixtures] claude-code-jsonl: ${summary(tally)}`)
      expect(tally.problems).toEqual([])
      expect(tally.messages).toBe(transcriptSamples.length)
      expect(transcriptSamples.length).toBeGreaterThan(0)
    })

    it("decode keeps every fixture message as it was, key order included; encode gives it back", () => {
      for (const { input, where } of [...streamSamples, ...transcriptSamples]) {
        const decoded = SdkMessage.decodeSync(input)
        expect(JSON.stringify(decoded), where).toBe(JSON.stringify(input))
        const encoded = SdkMessage.encode(decoded)
        expect(Either.isRight(encoded), where).toBe(true)
        if (Either.isRight(encoded)) expect(JSON.stringify(encoded.right), where).toBe(JSON.stringify(input))
      }
    })
  }
)
