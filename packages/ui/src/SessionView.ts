/**
 * The session page's view of a transcript as an incremental fold: transcript lines in, the
 * items the page shows out (prompts, assistant turns with their tool calls and results,
 * compaction points, system notes, unknown entries as raw JSON). The same fold serves the first
 * load (the whole file, streamed) and live growth (the lines appended since): every call
 * returns the items it created or changed, keyed, and the page upserts them by key.
 *
 * A later line may change an earlier item: a streamed assistant message is written one content
 * block per line under one `message.id` (one item, its usage the last fragment's, counted once
 * per `message.id` + `requestId` as `StatsFold` and `Usage` count it); a tool result updates the
 * tool call it answers; a subagent's progress or result names the agent that ran the call; a
 * compaction summary fills in the compaction point before it.
 *
 * Long texts are cut at {@link TEXT_CAP} characters with their full size and a reference
 * ({@link BlockRef}: line, content block, sub-block) from which {@link fullBlock} gives the
 * whole text or an image's data URL, on demand.
 *
 * Total: any JSON value in, items out; nothing here throws or does I/O. The state is updated in
 * place (a 50 000-line session must not be copied per line): pass the returned state on.
 *
 * @since 0.1.0
 */
import * as CommandMarkup from "@acx/convert/CommandMarkup"
import * as Pricing from "@acx/convert/Pricing"
import * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import type * as UiApi from "./UiApi.js"

/**
 * Texts longer than this many characters are cut in the payload (the rest loads on demand).
 *
 * @since 0.1.0
 * @category constants
 */
export const TEXT_CAP = 4_000

/**
 * A text as shown: `text` is at most {@link TEXT_CAP} characters; `size` is the full length
 * (larger when it was cut).
 *
 * @since 0.1.0
 * @category models
 */
export interface Text {
  readonly text: string
  readonly size: number
}

/**
 * Where a cut text or an image is in the transcript: its 1-based line, the index of the block in
 * `message.content` (`-1`: the whole entry as JSON; `0` also names a string `content`), and
 * for a tool result's content the index inside it.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockRef {
  readonly line: number
  readonly block: number
  readonly sub?: number | undefined
}

/**
 * An image, loaded on demand (`fullBlock` gives its data URL).
 *
 * @since 0.1.0
 * @category models
 */
export interface ImagePart {
  readonly type: "image"
  readonly mediaType: string
  /** Characters of its base64 data. */
  readonly size: number
  readonly ref: BlockRef
}

/**
 * A tool's result as it arrived.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly isError: boolean
  readonly text: Text
  readonly images: ReadonlyArray<ImagePart>
  readonly ref: BlockRef
  readonly timestamp: string | undefined
}

/**
 * A tool call, with its result once it arrived, and the subagent that ran it (a Task/Agent
 * call: `agentId` names `subagents/agent-<agentId>.jsonl`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolPart {
  readonly type: "tool"
  readonly id: string
  readonly name: string
  /** The input as pretty JSON. */
  readonly input: Text
  readonly ref: BlockRef
  readonly result?: ToolResult | undefined
  readonly agentId?: string | undefined
}

/**
 * One block of a prompt or an assistant turn. A prompt's Claude Code markup (`CommandMarkup`)
 * arrives read: `command`, a slash or `!` command as typed; `output`, a local command's output
 * as plain text (no tags, no terminal escapes; `isError` when it wrote only to stderr).
 *
 * @since 0.1.0
 * @category models
 */
export type Part =
  | { readonly type: "text"; readonly text: Text; readonly ref: BlockRef }
  | { readonly type: "command"; readonly command: string; readonly ref: BlockRef }
  | { readonly type: "output"; readonly text: Text; readonly isError: boolean; readonly ref: BlockRef }
  | { readonly type: "thinking"; readonly text: Text; readonly ref: BlockRef }
  | ImagePart
  | ToolPart
  | { readonly type: "other"; readonly blockType: string; readonly raw: Text; readonly ref: BlockRef }

/**
 * The tokens and cost of one API message (the last fragment's usage); `costUSD` is `null` when
 * the model has no price.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnUsage {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly costUSD: number | null
}

/**
 * What every item has: its key (the first entry's `uuid`, else `line:<n>`), the first line it
 * came from, every entry uuid it shows, its time, and `within`: the tool call (its `tool_use`
 * id) an inline sidechain entry belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export interface ItemBase {
  readonly key: string
  readonly line: number
  readonly uuids: ReadonlyArray<string>
  readonly timestamp: string | undefined
  readonly sidechain: boolean
  readonly within?: string | undefined
}

/**
 * An item of the page:
 * - `prompt`: what the user wrote (text and images);
 * - `assistant`: one API message: text (Markdown source), thinking, tool calls; its model and usage;
 * - `results`: tool results whose call is not in the transcript;
 * - `meta`: an entry Claude Code marks as meta (command output, caveats, attachments);
 * - `compaction`: a compaction point, with the summary the conversation continued from;
 * - `system`: a system entry (API error, local command, turn duration, …);
 * - `unknown`: an entry of a type acx does not know, shown as raw JSON on demand;
 * - `too-large`: a line over the size cap, not read (downloadable);
 * - `malformed`: a line that is not a JSON object.
 *
 * @since 0.1.0
 * @category models
 */
export type Item =
  | ItemBase & { readonly kind: "prompt"; readonly parts: ReadonlyArray<Part> }
  | ItemBase & {
    readonly kind: "assistant"
    readonly model: string | undefined
    readonly messageId: string | undefined
    readonly parts: ReadonlyArray<Part>
    readonly usage: TurnUsage | undefined
  }
  | ItemBase & { readonly kind: "results"; readonly parts: ReadonlyArray<Part> }
  | ItemBase & { readonly kind: "meta"; readonly label: string; readonly text: Text; readonly ref: BlockRef }
  | ItemBase & {
    readonly kind: "compaction"
    readonly trigger: string | undefined
    readonly preTokens: number | undefined
    readonly summary: (Text & { readonly ref: BlockRef }) | undefined
  }
  | ItemBase & { readonly kind: "system"; readonly subtype: string; readonly text: Text; readonly ref: BlockRef }
  | ItemBase & { readonly kind: "unknown"; readonly type: string; readonly raw: Text; readonly ref: BlockRef }
  | ItemBase & { readonly kind: "too-large"; readonly bytes: number }
  | ItemBase & { readonly kind: "malformed"; readonly description: string }

/**
 * One line of the transcript as the fold takes it: a parsed JSON value, a line over the size
 * cap (its byte count), or a line that is not JSON.
 *
 * @since 0.1.0
 * @category models
 */
export type Input =
  | { readonly line: number; readonly entry: unknown }
  | { readonly line: number; readonly tooLarge: number }
  | { readonly line: number; readonly malformed: string }

type Obj = { readonly [key: string]: unknown }

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/**
 * The fold's state: the items a later line can still change, and the maps that find them.
 * Opaque to callers; updated in place.
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly pricing: Pricing.PricingTable
  /** Applied to every text before it is cut (the server's secret masking; identity by default). */
  readonly mask: (text: string) => string
  /** Items that a later line may change (assistant turns, compactions), by key. */
  readonly open: Map<string, Item>
  /** Every key given so far (a repeated uuid gets a key of its own). */
  readonly keys: Set<string>
  /** Fragment key (message id, request id, sidechain, agent) → item key. */
  readonly messages: Map<string, string>
  /** Usage key (message id, request id) → the item whose usage counts it. */
  readonly usage: Map<string, string>
  /** tool_use id → item key. */
  readonly tools: Map<string, string>
  /** Task/Agent calls without a result yet, oldest first (inline sidechains attach to them). */
  readonly pendingTasks: Array<{ readonly id: string; readonly prompt: string | undefined }>
  /** Inline sidechain entry uuid → the tool call it belongs to (or null: none found). */
  readonly sidechains: Map<string, string | null>
  /** agentId → the tool call that ran it. */
  readonly agents: Map<string, string>
  /** The last compaction point without a summary yet. */
  lastCompaction: string | undefined
}

/**
 * A fresh state, pricing turns with `pricing` (the built-in table by default; the server passes
 * the table `acx stats` uses) and passing every text through `mask` before it is cut (the
 * server masks secrets there: only the texts the page shows pay for it, and a secret is never
 * cut in half before masking).
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial = (
  pricing: Pricing.PricingTable = Pricing.builtinPricing,
  mask: (text: string) => string = (text) => text
): State => ({
  pricing,
  mask,
  open: new Map(),
  keys: new Set(),
  messages: new Map(),
  usage: new Map(),
  tools: new Map(),
  pendingTasks: [],
  sidechains: new Map(),
  agents: new Map(),
  lastCompaction: undefined
})

// -------------------------------------------------------------------------------------------------
// helpers
// -------------------------------------------------------------------------------------------------

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value)

const get = (value: unknown, key: string): unknown => isObj(value) && Object.hasOwn(value, key) ? value[key] : undefined

const str = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

/**
 * A text cut to {@link TEXT_CAP} characters (without splitting a surrogate pair).
 *
 * @since 0.1.0
 * @category texts
 */
export const capped = (text: string): Text => {
  if (text.length <= TEXT_CAP) return { text, size: text.length }
  const code = text.charCodeAt(TEXT_CAP - 1)
  const end = code >= 0xd800 && code <= 0xdbff ? TEXT_CAP - 1 : TEXT_CAP
  return { text: text.slice(0, end), size: text.length }
}

const cap = (text: string): Text => capped(text)

// JSON.stringify that never throws (a value from JSON.parse has no cycles or BigInts, but the
// fold takes any value).
const json = (value: unknown): string => {
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

const contentOf = (message: unknown): ReadonlyArray<unknown> => {
  const content = get(message, "content")
  if (Array.isArray(content)) return content
  return typeof content === "string" ? [content] : []
}

/**
 * A tool result's content as text: its text blocks joined, other blocks as `[type]` (images are
 * listed apart).
 *
 * @since 0.1.0
 * @category texts
 */
export const resultText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content.flatMap((item) => {
      if (typeof item === "string") return [item]
      const type = get(item, "type")
      if (type === "text") return [typeof get(item, "text") === "string" ? get(item, "text") as string : ""]
      if (type === "image") return []
      return [`[${typeof type === "string" ? type : "block"}]`]
    }).join("\n")
  }
  return content === undefined || content === null ? "" : json(content)
}

const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])

const imageOf = (block: unknown, ref: BlockRef): ImagePart | undefined => {
  if (get(block, "type") !== "image") return undefined
  const source = get(block, "source")
  const data = get(source, "data")
  const mediaType = str(get(source, "media_type")) ?? "image"
  return { type: "image", mediaType, size: typeof data === "string" ? data.length : 0, ref }
}

// A user's text as Claude Code's markup read (`null`: nothing to show, an empty output), or
// `undefined` when it is no markup.
const markupPart = (text: string, ref: BlockRef, mask: (text: string) => string): Part | null | undefined => {
  const markup = CommandMarkup.parse(text)
  if (markup === undefined) return undefined
  switch (markup._tag) {
    case "Command":
      return { type: "command", command: mask(markup.command), ref }
    case "Output": {
      const plain = CommandMarkup.plain(markup)
      if (plain === "") return null
      return { type: "output", text: cap(mask(plain)), isError: markup.stdout === "" && markup.stderr !== "", ref }
    }
    case "Caveat":
      return markup.text === "" ? null : { type: "text", text: cap(mask(markup.text)), ref }
  }
}

const partOf = (
  block: unknown,
  ref: BlockRef,
  mask: (text: string) => string,
  fromUser = false
): Part | undefined => {
  const capped = (text: string) => cap(mask(text))
  const text = typeof block === "string" ? block : get(block, "type") === "text" ? get(block, "text") : undefined
  if (fromUser && typeof text === "string") {
    const markup = markupPart(text, ref, mask)
    if (markup !== undefined) return markup ?? undefined
  }
  if (typeof block === "string") return block.trim() === "" ? undefined : { type: "text", text: capped(block), ref }
  if (!isObj(block)) return undefined
  switch (block.type) {
    case "text":
      return typeof block.text === "string" && block.text.trim() !== ""
        ? { type: "text", text: capped(block.text), ref }
        : undefined
    case "thinking":
      return typeof block.thinking === "string" && block.thinking !== ""
        ? { type: "thinking", text: capped(block.thinking), ref }
        : undefined
    case "redacted_thinking":
      return { type: "thinking", text: capped("(redacted thinking)"), ref }
    case "tool_use":
    case "server_tool_use": {
      const id = str(block.id)
      if (id === undefined) break
      return { type: "tool", id, name: mask(str(block.name) ?? "tool"), input: capped(json(block.input ?? {})), ref }
    }
    case "image":
      return imageOf(block, ref)
  }
  return { type: "other", blockType: mask(str(block.type) ?? "block"), raw: capped(json(block)), ref }
}

const resultOf = (
  block: Obj,
  ref: BlockRef,
  timestamp: string | undefined,
  mask: (text: string) => string
): ToolResult => {
  const content = block.content
  const images = Array.isArray(content)
    ? content.flatMap((item, sub) => {
      const image = imageOf(item, { ...ref, sub })
      return image === undefined ? [] : [image]
    })
    : []
  const text = capped(mask(CommandMarkup.stripAnsi(resultText(content))))
  return { isError: block.is_error === true, text, images, ref, timestamp }
}

/**
 * The whole text (or an image's data URL) a {@link BlockRef} names in its entry, as the fold
 * cut it: a tool call's input as pretty JSON, a tool result's text, a text or thinking block, a
 * string content, the whole entry (`block: -1`) as JSON. `undefined` when the entry has no such
 * block.
 *
 * @since 0.1.0
 * @category blocks
 */
export const fullBlock = (
  entry: unknown,
  ref: Omit<BlockRef, "line">
): { readonly text: string } | { readonly dataUrl: string } | undefined => {
  if (ref.block === -1) return { text: json(entry) }
  const message = get(entry, "message")
  const content = get(message, "content")
  // a prompt's command markup in full as the fold showed it: read, not raw
  const userText = (text: string) =>
    get(entry, "type") === "user" && CommandMarkup.parse(text) !== undefined ? CommandMarkup.readable(text) : text
  if (typeof content === "string") {
    return ref.block === 0 && ref.sub === undefined ? { text: userText(content) } : undefined
  }
  if (!Array.isArray(content) || !Number.isInteger(ref.block) || ref.block < 0 || ref.block >= content.length) {
    return undefined
  }
  const block: unknown = content[ref.block]
  if (ref.sub !== undefined) {
    const inner = get(block, "content")
    if (!Array.isArray(inner) || !Number.isInteger(ref.sub) || ref.sub < 0 || ref.sub >= inner.length) {
      return undefined
    }
    return imageData(inner[ref.sub])
  }
  if (typeof block === "string") return { text: userText(block) }
  switch (get(block, "type")) {
    case "text":
      return { text: userText(String(get(block, "text") ?? "")) }
    case "thinking":
      return { text: String(get(block, "thinking") ?? "") }
    case "tool_use":
    case "server_tool_use":
      return { text: json(get(block, "input") ?? {}) }
    case "tool_result":
      return { text: CommandMarkup.stripAnsi(resultText(get(block, "content"))) }
    case "image":
      return imageData(block)
    default:
      return { text: json(block) }
  }
}

const imageData = (block: unknown): { readonly dataUrl: string } | undefined => {
  const source = get(block, "source")
  const data = get(source, "data")
  const mediaType = get(source, "media_type")
  // only raster types a browser shows without running anything (no SVG), only base64 letters
  if (
    get(block, "type") !== "image" || get(source, "type") !== "base64" || typeof data !== "string" ||
    typeof mediaType !== "string" || !IMAGE_TYPES.has(mediaType) || !/^[A-Za-z0-9+/=\s]*$/.test(data)
  ) return undefined
  return { dataUrl: `data:${mediaType};base64,${data.replace(/\s+/g, "")}` }
}

/**
 * The tokens and cost of one `message.usage` for `model`, priced as `acx stats` prices it.
 *
 * @since 0.1.0
 * @category usage
 */
export const turnUsage = (usage: unknown, model: string | undefined, pricing: Pricing.PricingTable): TurnUsage => {
  const figures = Pricing.responseUsage(usage)
  const rates = model === undefined ? undefined : Pricing.ratesFor(pricing, model)
  return {
    input: figures.input,
    output: figures.output,
    cacheRead: figures.cacheRead,
    cacheWrite: figures.cacheWrite,
    costUSD: rates === undefined ? null : Pricing.costOfResponse(rates, figures)
  }
}

const SYNTHETIC_MODEL = "<synthetic>"

// What the sessions list and acx show skip too: entries that carry no conversation.
const SILENT_TYPES: ReadonlySet<string> = new Set(
  Transcript.KNOWN_ENTRY_TYPES.filter((type) =>
    !(TranscriptLine.CONVERSATION_ENTRY_TYPES as ReadonlyArray<string>).includes(type)
  )
)

// -------------------------------------------------------------------------------------------------
// the fold
// -------------------------------------------------------------------------------------------------

/**
 * What one {@link fold} produced: the state to pass on, and the items it created or changed, in
 * order of their first change (an item appears once, in its latest form).
 *
 * @since 0.1.0
 * @category models
 */
export interface FoldResult {
  readonly state: State
  readonly items: ReadonlyArray<Item>
}

class Changes {
  readonly items = new Map<string, Item>()
  set(item: Item): void {
    this.items.set(item.key, item)
  }
}

const newKey = (state: State, uuid: string | undefined, line: number): string => {
  let key = uuid ?? `line:${line}`
  if (state.keys.has(key)) key = `${key}@${line}`
  // a line repeats only if the caller folds the same line twice: still a unique key
  for (let n = 2; state.keys.has(key); n++) key = `${uuid ?? "line"}@${line}.${n}`
  state.keys.add(key)
  return key
}

const base = (state: State, entry: Obj | undefined, line: number, within?: string): Mutable<ItemBase> => {
  const uuid = str(get(entry, "uuid"))
  return {
    key: newKey(state, uuid, line),
    line,
    uuids: uuid === undefined ? [] : [uuid],
    timestamp: str(get(entry, "timestamp")),
    sidechain: get(entry, "isSidechain") === true,
    ...(within === undefined ? {} : { within })
  }
}

const isTaskTool = (name: string): boolean => name === "Task" || name === "Agent"

// The tool call an inline sidechain entry (old layout: `isSidechain` lines in the main file)
// belongs to: its chain's, or for a chain's first entry the pending Task call with the same
// prompt, else the newest pending one.
const sidechainTool = (state: State, entry: Obj): string | undefined => {
  const agentId = str(entry.agentId)
  if (agentId !== undefined && state.agents.has(agentId)) return state.agents.get(agentId)
  const parent = str(entry.parentUuid)
  if (parent !== undefined && state.sidechains.has(parent)) {
    const tool = state.sidechains.get(parent) ?? undefined
    remember(state, entry, tool)
    return tool
  }
  const prompt = get(entry.message, "content")
  const text = typeof prompt === "string" ? prompt : resultText(prompt)
  const pending = state.pendingTasks
  const match = pending.find((task) => task.prompt !== undefined && task.prompt.trim() === text.trim()) ??
    pending[pending.length - 1]
  remember(state, entry, match?.id)
  return match?.id
}

const remember = (state: State, entry: Obj, tool: string | undefined): void => {
  const uuid = str(entry.uuid)
  if (uuid !== undefined) state.sidechains.set(uuid, tool ?? null)
}

const updateTool = (
  state: State,
  changes: Changes,
  toolId: string,
  change: (part: ToolPart) => ToolPart | undefined,
  uuid?: string
): boolean => {
  const key = state.tools.get(toolId)
  const item = key === undefined ? undefined : state.open.get(key)
  if (item === undefined || !("parts" in item)) return false
  let changed = false
  const parts = item.parts.map((part) => {
    if (part.type !== "tool" || part.id !== toolId) return part
    const next = change(part)
    if (next === undefined) return part
    changed = true
    return next
  })
  // the result's entry is found by its uuid too (`?turn=<uuid>` of a tool result)
  const uuids = uuid === undefined || item.uuids.includes(uuid) ? item.uuids : [...item.uuids, uuid]
  if (changed || uuids !== item.uuids) {
    const next = { ...item, parts, uuids } as Item
    state.open.set(next.key, next)
    changes.set(next)
  }
  return true
}

const setAgent = (state: State, changes: Changes, toolId: string, agentId: string): void => {
  if (!state.agents.has(agentId)) state.agents.set(agentId, toolId)
  updateTool(state, changes, toolId, (part) => part.agentId === agentId ? undefined : { ...part, agentId })
}

const foldAssistant = (state: State, changes: Changes, entry: Obj, line: number, within: string | undefined) => {
  const message = entry.message
  const id = str(get(message, "id"))
  const requestId = str(entry.requestId)
  const model = str(get(message, "model"))
  const fragmentKey = id === undefined
    ? undefined
    : JSON.stringify([id, requestId ?? null, entry.isSidechain === true, str(entry.agentId) ?? null])
  const existingKey = fragmentKey === undefined ? undefined : state.messages.get(fragmentKey)
  const existing = existingKey === undefined ? undefined : state.open.get(existingKey)
  const parts: Array<Part> = existing?.kind === "assistant" ? [...existing.parts] : []
  const item: Mutable<Extract<Item, { kind: "assistant" }>> = existing?.kind === "assistant"
    ? { ...existing, parts }
    : { ...base(state, entry, line, within), kind: "assistant", model, messageId: id, parts, usage: undefined }
  if (existing?.kind === "assistant") {
    const uuid = str(entry.uuid)
    if (uuid !== undefined && !item.uuids.includes(uuid)) item.uuids = [...item.uuids, uuid]
    if (item.model === undefined) item.model = model
  }
  contentOf(message).forEach((block, index) => {
    const part = partOf(block, { line, block: index }, state.mask)
    if (part === undefined) return
    parts.push(part)
    if (part.type === "tool") {
      state.tools.set(part.id, item.key)
      if (isTaskTool(part.name)) {
        state.pendingTasks.push({ id: part.id, prompt: str(get(get(block, "input"), "prompt")) })
      }
    }
  })
  const usage = get(message, "usage")
  if (isObj(usage) && model !== SYNTHETIC_MODEL) {
    // each API message once, by message id + request id (the last fragment's usage), as acx stats
    const usageKey = id === undefined ? undefined : JSON.stringify([id, requestId ?? ""])
    const owner = usageKey === undefined ? item.key : state.usage.get(usageKey) ?? item.key
    if (usageKey !== undefined && !state.usage.has(usageKey)) state.usage.set(usageKey, item.key)
    const counted = turnUsage(usage, model ?? item.model, state.pricing)
    if (owner === item.key) item.usage = counted
    else {
      // the same API message under another item (a sidechain copy): its first item keeps the count
      const first = state.open.get(owner)
      if (first?.kind === "assistant") {
        const next: Item = { ...first, usage: counted }
        state.open.set(owner, next)
        changes.set(next)
      }
    }
  }
  if (fragmentKey !== undefined) state.messages.set(fragmentKey, item.key)
  state.open.set(item.key, item)
  changes.set(item)
}

const foldUser = (state: State, changes: Changes, entry: Obj, line: number, within: string | undefined) => {
  const message = entry.message
  if (entry.isCompactSummary === true) {
    const content = get(message, "content")
    const summary = { ...capped(state.mask(resultText(content))), ref: { line, block: 0 } }
    const open = state.lastCompaction === undefined ? undefined : state.open.get(state.lastCompaction)
    state.lastCompaction = undefined
    if (open?.kind === "compaction" && open.summary === undefined) {
      const uuid = str(entry.uuid)
      const next: Item = { ...open, summary, uuids: uuid === undefined ? open.uuids : [...open.uuids, uuid] }
      state.open.set(next.key, next)
      changes.set(next)
      return
    }
    changes.set({
      ...base(state, entry, line, within),
      kind: "compaction",
      trigger: undefined,
      preTokens: undefined,
      summary
    })
    return
  }
  const blocks = contentOf(message)
  const parts: Array<Part> = []
  const orphans: Array<Part> = []
  const result = entry.toolUseResult
  blocks.forEach((block, index) => {
    const ref: BlockRef = { line, block: index }
    if (isObj(block) && block.type === "tool_result") {
      const toolId = str(block.tool_use_id) ?? ""
      const toolResult = resultOf(block, ref, str(entry.timestamp), state.mask)
      const task = state.pendingTasks.findIndex((pending) => pending.id === toolId)
      if (task >= 0) state.pendingTasks.splice(task, 1)
      const agentId = str(get(result, "agentId"))
      const found = updateTool(state, changes, toolId, (part) => ({
        ...part,
        result: toolResult,
        ...(agentId !== undefined && part.agentId === undefined ? { agentId } : {})
      }), str(entry.uuid))
      if (found && agentId !== undefined && !state.agents.has(agentId)) state.agents.set(agentId, toolId)
      if (!found) {
        orphans.push({
          type: "tool",
          id: toolId,
          name: "(call not in the transcript)",
          input: capped(""),
          ref,
          result: toolResult,
          ...(agentId === undefined ? {} : { agentId })
        })
      }
      return
    }
    const part = partOf(block, ref, state.mask, true)
    if (part !== undefined) parts.push(part)
  })
  if (orphans.length > 0) changes.set({ ...base(state, entry, line, within), kind: "results", parts: orphans })
  if (parts.length === 0) return
  if (entry.isMeta === true) {
    const text = parts.map((part) =>
      part.type === "text" || part.type === "output"
        ? part.text.text
        : part.type === "command"
        ? part.command
        : `[${part.type}]`
    ).join("\n")
    const ref: BlockRef = { line, block: typeof get(message, "content") === "string" ? 0 : -1 }
    changes.set({ ...base(state, entry, line, within), kind: "meta", label: "meta", text: capped(text), ref })
    return
  }
  changes.set({ ...base(state, entry, line, within), kind: "prompt", parts })
}

const systemText = (entry: Obj): string => {
  const content = entry.content
  // a local command's entry: the command as typed, its output without tags or escapes
  if (typeof content === "string" && content !== "") return CommandMarkup.readable(content)
  const subtype = str(entry.subtype)
  if (subtype === "turn_duration" && num(entry.durationMs) !== undefined) {
    return `turn took ${(num(entry.durationMs)! / 1000).toFixed(1)} s`
  }
  if (subtype === "api_error") {
    const error = get(entry, "error")
    return `API error${num(entry.retryAttempt) === undefined ? "" : ` (attempt ${entry.retryAttempt})`}: ${
      typeof error === "string" ? error : json(error)
    }`
  }
  return subtype ?? "system"
}

const foldSystem = (state: State, changes: Changes, entry: Obj, line: number, within: string | undefined) => {
  const subtype = state.mask(str(entry.subtype) ?? "system")
  if (subtype === "compact_boundary") {
    const metadata = entry.compactMetadata
    const item: Item = {
      ...base(state, entry, line, within),
      kind: "compaction",
      trigger: str(get(metadata, "trigger")),
      preTokens: num(get(metadata, "preTokens")),
      summary: undefined
    }
    state.lastCompaction = item.key
    state.open.set(item.key, item)
    changes.set(item)
    return
  }
  changes.set({
    ...base(state, entry, line, within),
    kind: "system",
    subtype,
    text: capped(state.mask(systemText(entry))),
    ref: { line, block: -1 }
  })
}

const foldEntry = (state: State, changes: Changes, entry: unknown, line: number): void => {
  if (!isObj(entry)) {
    changes.set({ ...base(state, undefined, line), kind: "malformed", description: "not a JSON object" })
    return
  }
  const type = typeof entry.type === "string" ? entry.type : undefined
  if (type === undefined) {
    changes.set({
      ...base(state, entry, line),
      kind: "unknown",
      type: "(no type)",
      raw: capped(state.mask(json(entry))),
      ref: { line, block: -1 }
    })
    return
  }
  const within = entry.isSidechain === true && (type === "user" || type === "assistant")
    ? sidechainTool(state, entry)
    : undefined
  switch (type) {
    case "assistant":
      return foldAssistant(state, changes, entry, line, within)
    case "user":
      return foldUser(state, changes, entry, line, within)
    case "system":
      return foldSystem(state, changes, entry, line, within)
    case "progress": {
      // a subagent at work: its agent id, under the tool call that started it
      const toolId = str(entry.parentToolUseID)
      const agentId = str(get(entry.data, "agentId"))
      if (toolId !== undefined && agentId !== undefined) setAgent(state, changes, toolId, agentId)
      return
    }
    case "attachment": {
      const attachment = entry.attachment
      const label = state.mask(
        `attachment${str(get(attachment, "type")) === undefined ? "" : `: ${get(attachment, "type")}`}`
      )
      changes.set({
        ...base(state, entry, line),
        kind: "meta",
        label,
        text: capped(state.mask(json(attachment))),
        ref: { line, block: -1 }
      })
      return
    }
  }
  if (SILENT_TYPES.has(type)) return
  changes.set({
    ...base(state, entry, line),
    kind: "unknown",
    type: state.mask(type),
    raw: capped(state.mask(json(entry))),
    ref: { line, block: -1 }
  })
}

/**
 * Folds transcript lines in, in file order: returns the state to pass on and the items created
 * or changed (each once, latest form). Folding lines all at once or in any split into chunks
 * gives the same items once upserted by key.
 *
 * @since 0.1.0
 * @category folding
 */
export const fold = (state: State, inputs: ReadonlyArray<Input>): FoldResult => {
  const changes = new Changes()
  for (const input of inputs) {
    if ("tooLarge" in input) {
      changes.set({ ...base(state, undefined, input.line), kind: "too-large", bytes: input.tooLarge })
    } else if ("malformed" in input) {
      changes.set({ ...base(state, undefined, input.line), kind: "malformed", description: input.malformed })
    } else {
      foldEntry(state, changes, input.entry, input.line)
    }
  }
  return { state, items: [...changes.items.values()] }
}

/**
 * Upserts `items` into a view (`order`: keys in first-seen order; `byKey`: the latest items),
 * as the page does with each batch.
 *
 * @since 0.1.0
 * @category folding
 */
export const upsert = (
  view: { readonly order: Array<string>; readonly byKey: Map<string, Item> },
  items: ReadonlyArray<Item>
): void => {
  for (const item of items) {
    if (!view.byKey.has(item.key)) view.order.push(item.key)
    view.byKey.set(item.key, item)
  }
}

/**
 * A whole transcript's items (fold of every line at once, upserted), in order.
 *
 * @since 0.1.0
 * @category folding
 */
export const items = (inputs: ReadonlyArray<Input>, pricing?: Pricing.PricingTable): Array<Item> => {
  const view = { order: [] as Array<string>, byKey: new Map<string, Item>() }
  upsert(view, fold(initial(pricing), inputs).items)
  return view.order.map((key) => view.byKey.get(key)!)
}

// -------------------------------------------------------------------------------------------------
// the wire format
// -------------------------------------------------------------------------------------------------

/**
 * A subagent transcript of the session (`subagents/agent-<agentId>.jsonl`), with what its
 * `.meta.json` says.
 *
 * @since 0.1.0
 * @category wire
 */
export interface SubagentRow {
  readonly agentId: string
  readonly agentType: string | null
  readonly description: string | null
}

/**
 * What the page's header shows of a session.
 *
 * @since 0.1.0
 * @category wire
 */
export interface SessionHeader {
  readonly sessionId: string
  readonly projectKey: string
  /** The last segment of `cwd`, else the project directory's name. */
  readonly project: string
  readonly title: string | null
  readonly cwd: string | null
  readonly gitBranch: string | null
  readonly startTime: string | null
  readonly lastTime: string | null
  /** `claude --resume <id>`. */
  readonly resume: string
  /** The transcript's size in bytes when the load began. */
  readonly bytes: number
  readonly subagents: ReadonlyArray<SubagentRow>
  /**
   * Tokens and dollars of the session and its subagents, from the fold `acx stats`, the list and
   * the costs page use (not a sum of the items: one figure everywhere). `null` in the payload's
   * header: a `usage` line follows once the fold is read, so the first paint waits for no fold.
   */
  readonly usage: UiApi.SessionFigure | null
  /** Whether secrets are masked in this payload. */
  readonly masked: boolean
  /** Lines over this many bytes are not read (offered as a download). */
  readonly lineCap: number
  readonly pricing: { readonly source: string; readonly date: string }
}

/**
 * One line of `GET /api/session/:id` (NDJSON; also each SSE `data:` of
 * `/api/session/:id/events`): the header first, then batches of items created or changed and,
 * among them, `usage` (the header's figure), then where the read ended (`bytes`: the offset after
 * the last whole line, from which the live events go on); live only: `reload` (the file was
 * replaced or shortened), `subagents` (the subagent transcripts changed) and `usage` again (after
 * the session or one of its subagents grew).
 *
 * @since 0.1.0
 * @category wire
 */
export type SessionLine =
  | { readonly type: "header"; readonly header: SessionHeader }
  | { readonly type: "items"; readonly items: ReadonlyArray<Item> }
  | { readonly type: "end"; readonly bytes: number; readonly lines: number }
  | { readonly type: "reload" }
  | { readonly type: "subagents"; readonly subagents: ReadonlyArray<SubagentRow> }
  | { readonly type: "usage"; readonly usage: UiApi.SessionFigure }

/**
 * `GET /api/session/:id/block`: a cut text in full, or an image as a data URL.
 *
 * @since 0.1.0
 * @category wire
 */
export type BlockResponse = { readonly text: string } | { readonly dataUrl: string }
