/**
 * What `StatsFold` reads of a transcript entry, and nothing else: a handful of top-level fields,
 * the message's id, model and usage, and the types and names of its content blocks. The fold
 * counts from these facts, so an entry parsed by `JSON.parse` ({@link factsOf}) and a line
 * scanned on its bytes without building the entry (the statistics worker's scanner) fold the
 * same way by construction.
 *
 * @internal
 */
import { get, isObj, type Plain } from "./plain.js"

/**
 * The facts of one entry. Each field is the value `StatsFold` would read from the parsed entry,
 * narrowed to the type it tests for (`undefined` when the value has another type or is absent).
 *
 * @internal
 */
export interface EntryFacts {
  /** `entry.type`, when a string. */
  type: string | undefined
  /** `entry.timestamp`, when a string. */
  timestamp: string | undefined
  /** `entry.agentId`, when a string (possibly empty). */
  agentId: string | undefined
  /** `entry.isSidechain === true`. */
  isSidechain: boolean
  /** `entry.isMeta === true`. */
  isMeta: boolean
  /** `entry.isCompactSummary === true`. */
  isCompactSummary: boolean
  /** `entry.subtype`, when a string. */
  subtype: string | undefined
  /** `entry.requestId`, when a string. */
  requestId: string | undefined
  /** `entry.message.id`, when a string. */
  messageId: string | undefined
  /** `entry.message.model`, when a string. */
  model: string | undefined
  /** `entry.message.usage`, when a plain object. */
  usage: Plain | undefined
  /** Whether `entry.message.content` is an array. */
  contentArray: boolean
  /** How many blocks that array holds. */
  blocks: number
  /** How many of them have `type` `"tool_result"`. */
  toolResults: number
  /** The names (strings) of the blocks with `type` `"tool_use"`, in order. */
  toolUses: Array<string>
}

/**
 * Facts with nothing in them (an entry with none of the fields).
 *
 * @internal
 */
export const noFacts = (): EntryFacts => ({
  type: undefined,
  timestamp: undefined,
  agentId: undefined,
  isSidechain: false,
  isMeta: false,
  isCompactSummary: false,
  subtype: undefined,
  requestId: undefined,
  messageId: undefined,
  model: undefined,
  usage: undefined,
  contentArray: false,
  blocks: 0,
  toolResults: 0,
  toolUses: []
})

const text = (value: unknown): string | undefined => typeof value === "string" ? value : undefined

/**
 * The facts of a parsed entry (a plain object).
 *
 * @internal
 */
export const factsOf = (entry: Plain): EntryFacts => {
  const message = entry.message
  const usage = get(message, "usage")
  const content = get(message, "content")
  const facts: EntryFacts = {
    type: text(entry.type),
    timestamp: text(entry.timestamp),
    agentId: text(entry.agentId),
    isSidechain: entry.isSidechain === true,
    isMeta: entry.isMeta === true,
    isCompactSummary: entry.isCompactSummary === true,
    subtype: text(entry.subtype),
    requestId: text(entry.requestId),
    messageId: text(get(message, "id")),
    model: text(get(message, "model")),
    usage: isObj(usage) ? usage : undefined,
    contentArray: Array.isArray(content),
    blocks: 0,
    toolResults: 0,
    toolUses: []
  }
  if (Array.isArray(content)) {
    facts.blocks = content.length
    for (const block of content) {
      const type = get(block, "type")
      if (type === "tool_result") facts.toolResults++
      else if (type === "tool_use") {
        const name = get(block, "name")
        if (typeof name === "string") facts.toolUses.push(name)
      }
    }
  }
  return facts
}
