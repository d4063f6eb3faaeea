/**
 * The session page's view of a transcript as an incremental fold: transcript lines in, the
 * items the page shows out (`SessionItem`). The same fold serves the first load (the whole file,
 * streamed) and live growth (the lines appended since): every call returns the items it created
 * or changed, keyed, and the page upserts them by key.
 *
 * A later line may change an earlier item: a streamed assistant message is written one content
 * block per line (one item per `Fragments.fragmentKey`; its usage the last fragment's, counted
 * once per `Fragments.messageKey` as `StatsFold` and `Usage` count it); a tool result updates the
 * tool call it answers; a subagent's progress or result names the agent that ran the call; a
 * compaction summary fills in the compaction point before it.
 *
 * Total: any JSON value in, items out; nothing here throws or does I/O. The state is updated in
 * place (a 50 000-line session must not be copied per line): pass the returned state on.
 *
 * @since 0.1.0
 */
import * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import * as CommandMarkup from "./CommandMarkup.js"
import { fragmentKey, messageKey } from "./Fragments.js"
import {
  finiteNumber as num,
  getOwn as get,
  isObj,
  nonEmptyString as str,
  type Obj,
  stringify
} from "./internal/json.js"
import * as Pricing from "./Pricing.js"
import { contentOf, partOf, resultOf } from "./SessionBlocks.js"
import {
  ATTACHMENT,
  type BlockRef,
  capped,
  type Input,
  type Item,
  type ItemBase,
  type Part,
  type ToolPart,
  turnUsage
} from "./SessionItem.js"
import * as StatsFold from "./StatsFold.js"
import { toolResultText } from "./ToolResult.js"

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
  /** Message key (message id, request id) → the item whose usage counts it, and what it counts. */
  readonly usage: Map<string, { readonly owner: string; readonly figures: StatsFold.MessageFigures }>
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

// JSON for the page, pretty; never throws
const json = (value: unknown): string => stringify(value, 2)

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
  const text = typeof prompt === "string" ? prompt : toolResultText(prompt)
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
  const model = str(get(message, "model"))
  const fragment = fragmentKey(entry)
  const existingKey = fragment === undefined ? undefined : state.messages.get(fragment)
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
  // each API message once (`Fragments.messageKey`), counted by acx stats' own rule
  const key = messageKey(entry)
  const previous = key === undefined ? undefined : state.usage.get(key)
  if (previous !== undefined || isObj(get(message, "usage"))) {
    const figures = StatsFold.messageFigures(message, previous?.figures, state.pricing)
    const owner = previous?.owner ?? item.key
    if (key !== undefined) state.usage.set(key, { owner, figures })
    const counted = turnUsage(figures, state.pricing)
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
  if (fragment !== undefined) state.messages.set(fragment, item.key)
  state.open.set(item.key, item)
  changes.set(item)
}

const foldUser = (state: State, changes: Changes, entry: Obj, line: number, within: string | undefined) => {
  const message = entry.message
  if (entry.isCompactSummary === true) {
    const content = get(message, "content")
    const summary = { ...capped(state.mask(toolResultText(content))), ref: { line, block: 0 } }
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
        `${ATTACHMENT}${str(get(attachment, "type")) === undefined ? "" : `: ${get(attachment, "type")}`}`
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
 * A whole transcript's items (fold of every line at once, upserted), in order; `mask` as in
 * {@link initial}.
 *
 * @since 0.1.0
 * @category folding
 */
export const items = (
  inputs: ReadonlyArray<Input>,
  pricing?: Pricing.PricingTable,
  mask?: (text: string) => string
): Array<Item> => {
  const view = { order: [] as Array<string>, byKey: new Map<string, Item>() }
  upsert(view, fold(initial(pricing, mask), inputs).items)
  return view.order.map((key) => view.byKey.get(key)!)
}
