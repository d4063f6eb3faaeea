/**
 * Forking a session's transcript, as the SDK's `forkSession` does in store mode: the entries
 * of the new session, with fresh uuids, the parent chain remapped, the session id rewritten
 * and each entry pointing back at the one it was copied from. Pure: the new uuids and the
 * current time are injected.
 *
 * Follows the SDK's rules: only conversation entries (user, assistant, system, attachment,
 * progress) with a uuid are copied, sidechain entries are not, progress entries are dropped
 * (a parent that is a progress entry is replaced by its nearest non-progress ancestor), so
 * no metadata entry (ai-title, last-prompt, queue-operation, file history, …) is carried over;
 * `isSidechain` becomes `false` and the team, agent, slug and per-turn bookkeeping fields are
 * removed; the compact metadata's preserved uuids are remapped; the last entry's timestamp
 * becomes `now`; a `custom-title` entry is appended. Before the copies come the session's API
 * request routes (`api-request-route`, one "unrecorded" route when the original records none).
 * Not reproduced: the other session-state entries the SDK writes around the copied ones
 * (`history-suppression`, `hybrid-organization`, `session-owner`, `isolation-latch` before
 * them; content replacements, `relocated`, data-flow records, `derived-from`, … after), the
 * remapping of `source_uuid` in commands and of the uuids in deferred-tool records. The row
 * uuids of `attachment_answer` and `blocked_prompts_withdrawn` attachments are remapped; past
 * `upToUuid`, the `state:kept` plugin rows hanging off it are carried, as the SDK does.
 *
 * @since 0.1.0
 */
import type * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import { get, isObj } from "./internal/json.js"
import type { Obj } from "./internal/json.js"
import { ancestry, conversation } from "./Reconstruct.js"
import { displayTitle, sessionMetadata } from "./SessionMetadata.js"

/**
 * What a fork needs:
 * - `newSessionId`: the session id of the fork;
 * - `upToUuid`: the last entry to copy, with its ancestry (every main entry when absent);
 * - `title`: the fork's title (default: the title a listing shows for the original — its custom,
 *   AI or summary title, else its first prompt, see `SessionMetadata.displayTitle` — plus " (fork)");
 * - `sourceSessionId`: the forked session's id, for `forkedFrom` (default: the first copied
 *   entry's `sessionId`);
 * - `now`: an ISO timestamp; `uuid`: a generator of fresh uuids.
 *
 * @since 0.1.0
 * @category models
 */
export interface ForkOptions {
  readonly newSessionId: string
  readonly upToUuid?: string
  readonly title?: string
  readonly sourceSessionId?: string
  readonly now: string
  readonly uuid: () => string
}

const CONVERSATION_TYPES: ReadonlySet<string> = new Set(TranscriptLine.CONVERSATION_ENTRY_TYPES)

// The fields the SDK clears on every copied entry (besides `isSidechain`, set to false).
const CLEARED_FIELDS: ReadonlyArray<string> = [
  "teamName",
  "agentName",
  "sessionKind",
  "entrypointInherited",
  "nestedSession",
  "slug",
  "sourceToolAssistantUUID",
  "summarizedTurnPromptUuids",
  "droppedPromptUuids",
  "sentAsUuid",
  "turnAttributionKey",
  "askedToGoOn"
]

const ROUTE_TYPE = "api-request-route"
const UNRECORDED = "unrecorded"
const ROUTE_PROVIDERS: ReadonlySet<string> = new Set([
  "anthropic",
  "customEndpoint",
  "bedrock",
  "vertex",
  "foundry",
  "anthropicAws",
  "mantle",
  "gateway"
])
const ROUTE_CREDENTIALS: ReadonlySet<string> = new Set(["login", "key", "token", "cloud", "gateway", "none"])

// The API request routes the fork inherits, as the SDK reads them: every `api-request-route`
// entry with a string provider and credential, an unknown one becoming "other" (the
// unrecorded pair stays as is), one per distinct pair in first-seen order; the unrecorded route
// when there is none.
const requestRoutes = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>
): Array<{ readonly provider: string; readonly credential: string }> => {
  const routes = new Map<string, { readonly provider: string; readonly credential: string }>()
  for (const entry of entries) {
    if (get(entry, "type") !== ROUTE_TYPE) continue
    const provider = str(get(entry, "provider"))
    const credential = str(get(entry, "credential"))
    if (provider === undefined || credential === undefined) continue
    const route = provider === UNRECORDED && credential === UNRECORDED
      ? { provider, credential }
      : {
        provider: ROUTE_PROVIDERS.has(provider) ? provider : "other",
        credential: ROUTE_CREDENTIALS.has(credential) ? credential : "other"
      }
    routes.set(`${route.provider}:${route.credential}`, route)
  }
  return routes.size === 0 ? [{ provider: UNRECORDED, credential: UNRECORDED }] : [...routes.values()]
}

const str = (value: unknown): string | undefined => typeof value === "string" ? value : undefined

interface Copied {
  readonly obj: Obj
  readonly uuid: string
  readonly type: string
}

const copyable = (entries: ReadonlyArray<Transcript.TranscriptEntry>): Array<Copied> =>
  entries.flatMap((entry) => {
    if (!isObj(entry)) return []
    const obj: Obj = entry
    const uuid = str(obj["uuid"])
    const type = str(obj["type"])
    if (uuid === undefined || type === undefined || !CONVERSATION_TYPES.has(type) || obj["isSidechain"] === true) {
      return []
    }
    return [{ obj, uuid, type }]
  })

const select = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  candidates: ReadonlyArray<Copied>,
  upToUuid: string | undefined
): Array<Copied> => {
  if (upToUuid === undefined) return [...candidates]
  const last = candidates.findIndex((item) => item.uuid === upToUuid)
  if (last === -1) return []
  // The SDK keeps the ancestry of `upToUuid` and what its chain reconstruction splices in (the
  // other blocks and tool results of the same API messages) from the entries before it.
  const end = entries.findIndex((entry) => get(entry, "uuid") === upToUuid)
  const leaf = {
    type: "system",
    uuid: `${upToUuid}\u0000fork`,
    parentUuid: upToUuid
  } as unknown as Transcript.TranscriptEntry
  const chain = new Set([
    ...ancestry(entries, upToUuid).map((item) => item.uuid),
    ...conversation([...entries.slice(0, end + 1), leaf]).map((item) => item.uuid)
  ])
  const chosen = candidates.slice(0, last + 1).filter((item) => chain.has(item.uuid))
  return [...chosen, ...keptRows(candidates.slice(last + 1), chosen)]
}

// Past `upToUuid` the SDK carries the `state:kept` plugin rows that hang off the fork's last
// entry (directly or through other rows that are not messages), each re-parented onto the entry
// before it in the fork.
const keptRows = (after: ReadonlyArray<Copied>, chosen: ReadonlyArray<Copied>): Array<Copied> => {
  const rows: Array<Copied> = []
  const reached = new Set<unknown>([chosen.at(-1)?.uuid])
  for (const item of after) {
    if (item.type === "user" || item.type === "assistant" || !reached.has(item.obj["parentUuid"])) continue
    reached.add(item.uuid)
    if (item.type === "system" && item.obj["content"] === "" && get(item.obj["pluginRow"], "name") === "state:kept") {
      const parentUuid = (rows.at(-1) ?? chosen.at(-1))?.uuid ?? null
      rows.push({ ...item, obj: { ...item.obj, parentUuid } })
    }
  }
  return rows
}

const remapMetadata = (metadata: unknown, map: ReadonlyMap<string, string>): unknown => {
  if (!isObj(metadata)) return metadata
  const one = (value: unknown): unknown => typeof value === "string" ? map.get(value) ?? value : value
  const remap = (value: unknown, keys: ReadonlyArray<string>): unknown => {
    if (!isObj(value)) return value
    const copy: Record<string, unknown> = { ...value }
    for (const key of keys) {
      if (!(key in copy)) continue
      const field = copy[key]
      copy[key] = Array.isArray(field) ? field.map(one) : one(field)
    }
    return copy
  }
  const copy: Record<string, unknown> = { ...metadata }
  if ("preservedMessages" in copy) {
    copy["preservedMessages"] = remap(copy["preservedMessages"], ["anchorUuid", "uuids", "allUuids"])
  }
  if ("preservedSegment" in copy) {
    copy["preservedSegment"] = remap(copy["preservedSegment"], ["headUuid", "anchorUuid", "tailUuid"])
  }
  return copy
}

// The row uuids an attachment names, remapped as the SDK does: an `attachment_answer`'s
// `rowUuid` (when it names a copied entry), a `blocked_prompts_withdrawn`'s `prompts` and `rest`.
const remapAttachment = (attachment: unknown, map: ReadonlyMap<string, string>): unknown => {
  if (!isObj(attachment)) return attachment
  const rowUuid = str(attachment["rowUuid"])
  if (attachment["type"] === "attachment_answer" && rowUuid !== undefined && map.has(rowUuid)) {
    return { ...attachment, rowUuid: map.get(rowUuid) }
  }
  const { prompts, rest } = attachment
  if (attachment["type"] === "blocked_prompts_withdrawn" && Array.isArray(prompts) && Array.isArray(rest)) {
    const one = (value: unknown): unknown => map.get(value as string) ?? value
    return { ...attachment, prompts: prompts.map(one), rest: rest.map(one) }
  }
  return attachment
}

/**
 * The entries of a new session forked from `entries` (a main transcript): the main entries up
 * to and including `upToUuid` along its ancestry (all of them when absent), copied with fresh
 * uuids (`parentUuid` and `logicalParentUuid` remapped through the same map), `sessionId` set to
 * `newSessionId`, `forkedFrom: { sessionId, messageUuid }` naming the original, the last
 * entry's timestamp set to `now`, after the session's `api-request-route` entries and before a
 * `custom-title` entry. Empty when there is nothing to
 * fork (no main conversation entry, or `upToUuid` is not one), where the SDK throws.
 *
 * @since 0.1.0
 * @category forking
 */
export const forkTranscript = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: ForkOptions
): Array<Transcript.TranscriptEntry> => {
  const candidates = copyable(entries)
  const selected = select(entries, candidates, options.upToUuid)
  const kept = selected.filter((item) => item.type !== "progress")
  if (kept.length === 0) return []
  const sourceSessionId = options.sourceSessionId ?? selected.map((item) => str(item.obj["sessionId"])).find(
    (id) => id !== undefined
  ) ?? ""
  const fresh = new Map<string, string>()
  for (const item of selected) if (!fresh.has(item.uuid)) fresh.set(item.uuid, options.uuid())
  const keptFresh = new Map<string, string>()
  for (const item of kept) keptFresh.set(item.uuid, fresh.get(item.uuid) ?? item.uuid)
  const byUuid = new Map<string, Copied>()
  // progress entries are passed through even when not selected (the SDK's slice keeps them)
  for (const item of candidates) byUuid.set(item.uuid, item)
  const parentOf = (item: Copied): string | null => {
    let current = str(item.obj["parentUuid"])
    const seen = new Set<string>()
    while (current !== undefined) {
      const parent = byUuid.get(current)
      if (parent === undefined) return null
      if (parent.type !== "progress" || seen.has(parent.uuid)) return fresh.get(parent.uuid) ?? null
      seen.add(parent.uuid)
      current = str(parent.obj["parentUuid"])
    }
    return null
  }
  const copies = kept.map((item, index): Transcript.TranscriptEntry => {
    const copy: Record<string, unknown> = { ...item.obj }
    if (item.type === "system" && "compactMetadata" in copy) {
      copy["compactMetadata"] = remapMetadata(copy["compactMetadata"], keptFresh)
    }
    if (item.type === "attachment" && "attachment" in copy) {
      copy["attachment"] = remapAttachment(copy["attachment"], fresh)
    }
    copy["uuid"] = fresh.get(item.uuid) ?? item.uuid
    copy["parentUuid"] = parentOf(item)
    const logical = item.obj["logicalParentUuid"]
    if (typeof logical === "string") copy["logicalParentUuid"] = fresh.get(logical) ?? null
    copy["sessionId"] = options.newSessionId
    if (index === kept.length - 1) copy["timestamp"] = options.now
    copy["isSidechain"] = false
    for (const field of CLEARED_FIELDS) delete copy[field]
    const requestSessionId = item.type === "assistant"
      ? [item.obj["requestSessionId"], get(item.obj["forkedFrom"], "sessionId"), item.obj["sessionId"]].find(
        (id): id is string => typeof id === "string"
      )
      : undefined
    if (requestSessionId === undefined) delete copy["requestSessionId"]
    else copy["requestSessionId"] = requestSessionId
    copy["forkedFrom"] = { sessionId: sourceSessionId, messageUuid: item.uuid }
    return copy as Transcript.TranscriptEntry
  })
  const title = options.title?.trim() || `${displayTitle(sessionMetadata(entries)) ?? "Forked session"} (fork)`
  const titleEntry: Record<string, unknown> = {
    type: "custom-title",
    sessionId: options.newSessionId,
    customTitle: title,
    uuid: options.uuid(),
    timestamp: options.now
  }
  const routes = requestRoutes(entries).map((route) =>
    ({ type: ROUTE_TYPE, ...route, sessionId: options.newSessionId }) as unknown as Transcript.TranscriptEntry
  )
  return [...routes, ...copies, titleEntry as Transcript.TranscriptEntry]
}
