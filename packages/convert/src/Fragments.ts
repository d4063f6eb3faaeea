/**
 * Assistant fragment merging for Claude Code transcripts. The CLI writes one content block per
 * line, so one API message (one `message.id`) spans several transcript entries; this module
 * folds them back into one entry.
 *
 * Inputs are `unknown`: parsed JSON lines in file order. Every function here is total.
 *
 * @since 0.1.0
 */
// plain.js, not json.js: StatsFold keys messages here, and it runs in the statistics worker,
// whose bundle leaves Effect out
import { get, isObj, type Plain as Obj } from "./internal/plain.js"

/**
 * A transcript entry after {@link mergeAssistantFragments}: merged assistant entries carry
 * `mergedUuids`, every fragment's `uuid` in file order.
 *
 * @since 0.1.0
 * @category models
 */
export type MergedEntry = Obj & { readonly mergedUuids?: ReadonlyArray<string> }

const str = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

/**
 * The key that groups the fragments of one assistant message: `message.id`, plus `requestId`
 * (when present), sidechain flag and `agentId`. `undefined` for entries that are not
 * assistant entries with a string `message.id`.
 *
 * @since 0.1.0
 * @category keys
 */
export const fragmentKey = (entry: unknown): string | undefined => {
  if (!isObj(entry) || entry.type !== "assistant") return undefined
  const id = str(get(entry.message, "id"))
  if (id === undefined) return undefined
  return JSON.stringify([id, str(entry.requestId) ?? null, entry.isSidechain === true, str(entry.agentId) ?? null])
}

/**
 * The key that counts one API message once: `message.id` plus `requestId` (`""` when absent).
 * Its fragments, and a sidechain's copy of it, share the key; the last fragment's usage is the
 * message's (`Usage`, `StatsFold` and the session page's fold all count by it). `undefined` for
 * entries that are not assistant entries with a string `message.id`.
 *
 * @since 0.1.0
 * @category keys
 */
export const messageKey = (entry: unknown): string | undefined => {
  if (!isObj(entry) || entry.type !== "assistant") return undefined
  const id = str(get(entry.message, "id"))
  if (id === undefined) return undefined
  return JSON.stringify([id, typeof entry.requestId === "string" ? entry.requestId : ""])
}

const contentOf = (message: unknown): Array<unknown> => {
  const content = get(message, "content")
  if (Array.isArray(content)) return content
  return typeof content === "string" && content !== "" ? [{ type: "text", text: content }] : []
}

interface Group {
  readonly first: Obj
  readonly content: Array<unknown>
  readonly uuids: Array<string>
  last: Obj
  count: number
}

const build = (group: Group): MergedEntry => {
  if (group.count === 1) return { ...group.first, mergedUuids: group.uuids }
  const firstMessage = isObj(group.first.message) ? group.first.message : {}
  const lastMessage = isObj(group.last.message) ? group.last.message : {}
  const message: { [key: string]: unknown } = { ...firstMessage, content: group.content }
  if ("usage" in lastMessage) message.usage = lastMessage.usage
  if ("stop_reason" in lastMessage) message.stop_reason = lastMessage.stop_reason
  if ("stop_sequence" in lastMessage) message.stop_sequence = lastMessage.stop_sequence
  return { ...group.first, message, mergedUuids: group.uuids }
}

/**
 * Merges assistant entries that share {@link fragmentKey} (consecutive or not) into ONE
 * assistant entry, placed where the first fragment was: content blocks concatenated in file
 * order, the first fragment's `uuid`/`parentUuid`/`timestamp` and other fields, the LAST
 * fragment's `usage`/`stop_reason`/`stop_sequence`, and `mergedUuids` listing every fragment's
 * `uuid`. Every other entry (non-assistant, or without `message.id`) is kept as is, in order;
 * non-objects (arrays too) are dropped. A single-fragment message keeps its entry unchanged apart
 * from `mergedUuids`; in a merged one, string content counts as one text block.
 *
 * @since 0.1.0
 * @category merging
 */
export const mergeAssistantFragments = (entries: ReadonlyArray<unknown>): Array<MergedEntry> => {
  if (!Array.isArray(entries)) return []
  const slots: Array<{ readonly entry: Obj } | { readonly group: Group }> = []
  const groups = new Map<string, Group>()
  for (const entry of entries) {
    if (!isObj(entry)) continue
    const key = fragmentKey(entry)
    if (key === undefined) {
      slots.push({ entry })
      continue
    }
    const uuid = str(entry.uuid)
    const existing = groups.get(key)
    if (existing === undefined) {
      const group: Group = { first: entry, last: entry, content: [...contentOf(entry.message)], uuids: [], count: 1 }
      if (uuid !== undefined) group.uuids.push(uuid)
      groups.set(key, group)
      slots.push({ group })
    } else {
      existing.last = entry
      existing.count += 1
      existing.content.push(...contentOf(entry.message))
      if (uuid !== undefined) existing.uuids.push(uuid)
    }
  }
  return slots.map((slot) => "group" in slot ? build(slot.group) : slot.entry)
}
