/**
 * Reconstruction of a session's conversation from its transcript entries, by their `parentUuid`
 * chains.
 *
 * Follows the SDK's `getSessionMessages` (preserved-segment relinking, newest non-sidechain
 * leaf, orphaned tool results spliced next to their assistant) with one difference: the walk
 * does not stop at a compact boundary but continues through its `logicalParentUuid`, so the
 * whole history across compactions is returned, and no entry of the chain is filtered out
 * (meta entries, compact summaries and boundaries, system entries, attachments and progress
 * entries stay, with their flags). The walk starts at the newest main leaf itself, so entries
 * written after the last user or assistant turn (turn durations, hook summaries) are kept too.
 *
 * @since 0.1.0
 */
import type * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import { get, isObj } from "./internal/json.js"
import type { Obj } from "./internal/json.js"

/**
 * One entry of a reconstructed conversation.
 * - `index`: the entry's position in the input;
 * - `spliced`: not on the parent chain, placed after its assistant (another block of the same
 *   API message, or a tool result whose `parentUuid` does not lead back to the chain).
 *
 * @since 0.1.0
 * @category models
 */
export interface ConversationItem {
  readonly uuid: string
  readonly entry: Transcript.TranscriptEntry
  readonly index: number
  readonly isMeta: boolean
  readonly isCompactSummary: boolean
  readonly isCompactBoundary: boolean
  readonly isSidechain: boolean
  readonly spliced: boolean
}

/**
 * The inline sidechain entries of one agent (the old layout: `isSidechain: true` lines in the
 * main transcript), in file order. `agentId` is absent for entries without one; they are grouped
 * by the first entry of their chain (`rootUuid`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Sidechain {
  readonly agentId: string | undefined
  readonly rootUuid: string
  readonly entries: ReadonlyArray<ConversationItem>
}

// A class, not an object literal, for the same reason as `ParsedLine` in TranscriptParse: V8
// pretenures the objects of an object literal when most of them survive a young collection (as
// the whole graph does while it is built), and dead pretenured nodes then keep the parsed entries
// they point to alive until a full collection (measured: GC time per parse + reconstruct went
// from about 5 ms to 0.5 ms).
class Node {
  constructor(
    readonly uuid: string,
    readonly entry: Transcript.TranscriptEntry,
    readonly obj: Obj,
    readonly index: number,
    readonly order: number,
    readonly type: string,
    readonly parent: string | undefined,
    readonly logicalParent: string | undefined,
    readonly isSidechain: boolean,
    readonly timestamp: string
  ) {}
}

const CONVERSATION_TYPES: ReadonlySet<string> = new Set(TranscriptLine.CONVERSATION_ENTRY_TYPES)

const str = (value: unknown): string | undefined => typeof value === "string" ? value : undefined

const strings = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value as ReadonlyArray<string> : undefined

const isCompactBoundary = (node: Node): boolean => node.type === "system" && node.obj["subtype"] === "compact_boundary"

const NO_IDS: ReadonlyArray<string> = []

const blockIds = (node: Node, blockType: string, key: string): ReadonlyArray<string> => {
  const content = get(node.obj["message"], "content")
  if (!Array.isArray(content)) return NO_IDS
  let ids: Array<string> | undefined
  for (const block of content) {
    if (get(block, "type") !== blockType) continue
    const id = get(block, key)
    if (typeof id === "string") (ids ??= []).push(id)
  }
  return ids ?? NO_IDS
}

// Whether `blockIds(node, blockType, key)` is not empty, without collecting the ids.
const hasBlockId = (node: Node, blockType: string, key: string): boolean => {
  const content = get(node.obj["message"], "content")
  if (!Array.isArray(content)) return false
  for (const block of content) {
    if (get(block, "type") === blockType && typeof get(block, key) === "string") return true
  }
  return false
}

const messageId = (node: Node): string | undefined =>
  node.type === "assistant" ? str(get(node.obj["message"], "id")) : undefined

interface Graph {
  readonly nodes: ReadonlyMap<string, Node>
  // parent links after preserved-segment relinking
  readonly parents: ReadonlyMap<string, string | undefined>
}

const buildGraph = (entries: ReadonlyArray<Transcript.TranscriptEntry>): Graph => {
  const nodes = new Map<string, Node>()
  entries.forEach((entry, index) => {
    if (!isObj(entry)) return
    const obj: Obj = entry
    const uuid = str(obj["uuid"])
    const type = str(obj["type"])
    if (uuid === undefined || type === undefined || !CONVERSATION_TYPES.has(type)) return
    const previous = nodes.get(uuid)
    nodes.set(
      uuid,
      new Node(
        uuid,
        entry,
        obj,
        index,
        previous?.order ?? nodes.size,
        type,
        str(obj["parentUuid"]),
        str(obj["logicalParentUuid"]),
        obj["isSidechain"] === true,
        str(obj["timestamp"]) ?? ""
      )
    )
  })
  const parents = new Map<string, string | undefined>()
  for (const node of nodes.values()) parents.set(node.uuid, node.parent)
  for (const node of nodes.values()) {
    if (!isCompactBoundary(node)) continue
    const metadata = node.obj["compactMetadata"]
    const preservedMessages = get(metadata, "preservedMessages")
    const preservedSegment = get(metadata, "preservedSegment")
    if (isObj(preservedMessages)) {
      const uuids = strings(preservedMessages["uuids"])
      const anchor = str(preservedMessages["anchorUuid"])
      if (uuids === undefined || uuids.length === 0 || uuids.some((uuid) => !nodes.has(uuid))) continue
      let previous = anchor
      for (const uuid of uuids) {
        parents.set(uuid, previous)
        previous = uuid
      }
      const first = uuids[0]
      if (anchor === undefined) continue
      for (const [uuid, parent] of parents) {
        if (parent === anchor && uuid !== first) parents.set(uuid, previous)
      }
    } else if (isObj(preservedSegment)) {
      const head = str(preservedSegment["headUuid"])
      const anchor = str(preservedSegment["anchorUuid"])
      const tail = str(preservedSegment["tailUuid"])
      if (head !== undefined && nodes.has(head)) parents.set(head, anchor)
      if (anchor === undefined) continue
      for (const [uuid, parent] of parents) {
        if (parent === anchor && uuid !== head) parents.set(uuid, tail)
      }
    }
  }
  return { nodes, parents }
}

const relinkedParent = (graph: Graph, node: Node): Node | undefined => {
  const parent = graph.parents.get(node.uuid)
  return parent === undefined ? undefined : graph.nodes.get(parent)
}

// The parent as written: `parentUuid`, or across a compact boundary its `logicalParentUuid`.
const writtenParent = (graph: Graph, node: Node): Node | undefined => {
  const parent = node.parent === undefined ? undefined : graph.nodes.get(node.parent)
  if (parent !== undefined) return parent
  return node.logicalParent === undefined ? undefined : graph.nodes.get(node.logicalParent)
}

const nextOnChain = (graph: Graph, node: Node, seen: ReadonlySet<string>): Node | undefined => {
  const relinked = relinkedParent(graph, node)
  if (relinked !== undefined && !seen.has(relinked.uuid)) return relinked
  const written = writtenParent(graph, node)
  if (written !== undefined && !seen.has(written.uuid)) return written
  // Entries already on the chain (a preserved segment relinked after its boundary) are passed
  // through, along the links as written, to the history before them.
  const passed = new Set<string>()
  let current = writtenParent(graph, node)
  while (current !== undefined && seen.has(current.uuid) && !passed.has(current.uuid)) {
    passed.add(current.uuid)
    current = writtenParent(graph, current)
  }
  return current !== undefined && !seen.has(current.uuid) ? current : undefined
}

const walk = (graph: Graph, start: Node): Array<Node> => {
  const chain: Array<Node> = []
  const seen = new Set<string>()
  let current: Node | undefined = start
  while (current !== undefined) {
    seen.add(current.uuid)
    chain.push(current)
    current = nextOnChain(graph, current, seen)
  }
  return chain.reverse()
}

const isTurn = (node: Node): boolean => node.type === "user" || node.type === "assistant"

const isMainCandidate = (node: Node): boolean =>
  !node.isSidechain && node.obj["teamName"] === undefined && node.type !== "progress" &&
  !(node.type === "attachment" && get(node.obj["attachment"], "type") === "fork_briefing")

// The SDK's choice of where the conversation ends: among the entries with no main child, newest
// first, the first whose ancestors include a user or assistant entry; the walk starts there.
const findTerminal = (graph: Graph): Node | undefined => {
  const hasMainChild = new Set<string>()
  for (const node of graph.nodes.values()) {
    const parent = graph.parents.get(node.uuid)
    if (parent !== undefined && isMainCandidate(node)) hasMainChild.add(parent)
  }
  const candidates = [...graph.nodes.values()]
    .filter((node) => isMainCandidate(node) && !hasMainChild.has(node.uuid))
    .sort((a, b) => b.index - a.index)
  const walked = new Set<string>()
  for (const candidate of candidates) {
    const here = new Set<string>()
    let current: Node | undefined = candidate
    while (current !== undefined && !walked.has(current.uuid) && !here.has(current.uuid)) {
      if (isTurn(current)) return candidate
      here.add(current.uuid)
      current = relinkedParent(graph, current)
    }
    for (const uuid of here) walked.add(uuid)
  }
  // No main leaf: the newest turn reachable from any leaf, preferring non-sidechain, non-meta.
  const parentsOf = new Set([...graph.parents.values()])
  const turns: Array<Node> = []
  for (const node of graph.nodes.values()) {
    if (parentsOf.has(node.uuid)) continue
    const here = new Set<string>()
    let current: Node | undefined = node
    while (current !== undefined && !here.has(current.uuid)) {
      here.add(current.uuid)
      if (isTurn(current)) {
        turns.push(current)
        break
      }
      current = relinkedParent(graph, current)
    }
  }
  const newest = (nodes: ReadonlyArray<Node>) =>
    nodes.reduce<Node | undefined>(
      (best, node) => best === undefined || node.index > best.index ? node : best,
      undefined
    )
  const main = turns.filter((node) =>
    !node.isSidechain && node.obj["teamName"] === undefined && node.obj["isMeta"] !== true
  )
  return newest(main) ?? newest(turns)
}

const sameSide = (a: Node, b: Node): boolean => a.isSidechain === b.isSidechain && a.obj["agentId"] === b.obj["agentId"]

const isToolResultTurn = (graph: Graph, node: Node): boolean =>
  node.type === "user" && graph.parents.get(node.uuid) !== undefined &&
  hasBlockId(node, "tool_result", "tool_use_id")

const byTimestamp = (a: Node, b: Node): number => a.timestamp.localeCompare(b.timestamp)

const toItem = (node: Node, spliced: boolean): ConversationItem => ({
  uuid: node.uuid,
  entry: node.entry,
  index: node.index,
  isMeta: node.obj["isMeta"] === true,
  isCompactSummary: node.obj["isCompactSummary"] === true,
  isCompactBoundary: isCompactBoundary(node),
  isSidechain: node.isSidechain,
  spliced
})

// The SDK's splice: after the last chain entry of each API message, the message's other blocks
// that are off the chain, then the tool results answering it that are off the chain.
// Allocation is kept to what a message that needs splicing uses: the whole parsed transcript is
// alive while this runs, so every garbage collection it triggers copies all of it.
const splice = (graph: Graph, chain: ReadonlyArray<Node>): Array<ConversationItem> => {
  const plain = () => chain.map((node) => toItem(node, false))
  const assistants = chain.filter((node) => node.type === "assistant")
  if (assistants.length === 0) return plain()
  const lastOnChain = new Map<string, Node>()
  for (const node of assistants) {
    const id = messageId(node)
    if (id !== undefined) lastOnChain.set(id, node)
  }
  const groups = new Map<string, Array<Node>>()
  const toolUseOwner = new Map<string, Node | null>()
  const results: Array<Node> = []
  for (const node of graph.nodes.values()) {
    const id = messageId(node)
    if (id !== undefined) {
      const group = groups.get(id)
      if (group) group.push(node)
      else groups.set(id, [node])
      for (const toolUseId of blockIds(node, "tool_use", "id")) {
        const owner = toolUseOwner.get(toolUseId)
        toolUseOwner.set(toolUseId, owner === undefined || (owner !== null && messageId(owner) === id) ? node : null)
      }
    } else if (isToolResultTurn(graph, node)) {
      results.push(node)
    }
  }
  // insertion-ordered and deduplicated: a result linked twice to one parent is listed once
  const children = new Map<string, Set<Node>>()
  const link = (parent: string | undefined, child: Node) => {
    if (parent === undefined) return
    const set = children.get(parent)
    if (set) set.add(child)
    else children.set(parent, new Set([child]))
  }
  for (const result of results) {
    const parent = graph.parents.get(result.uuid)
    link(parent, result)
    const source = str(result.obj["sourceToolAssistantUUID"])
    const sourceNode = source !== undefined && source !== parent ? graph.nodes.get(source) : undefined
    if (sourceNode !== undefined && sameSide(result, sourceNode)) link(sourceNode.uuid, result)
    for (const toolUseId of blockIds(result, "tool_result", "tool_use_id")) {
      const owner = toolUseOwner.get(toolUseId)
      if (owner && sameSide(result, owner)) link(owner.uuid, result)
    }
  }
  const answered = new Set<string>()
  for (const node of chain) for (const id of blockIds(node, "tool_result", "tool_use_id")) answered.add(id)
  const placed = new Set<string>()
  for (const node of chain) placed.add(node.uuid)
  const done = new Set<string>()
  const after = new Map<string, Array<Node>>()
  for (const assistant of assistants) {
    const id = messageId(assistant)
    if (id === undefined || done.has(id)) continue
    done.add(id)
    const group = groups.get(id) ?? [assistant]
    // membership by message id: the group is every node whose message id is `id`
    const inGroup = (uuid: string): boolean => {
      const node = graph.nodes.get(uuid)
      return node !== undefined && messageId(node) === id
    }
    let blocks: Array<Node> | undefined
    let direct: Array<Node> | undefined
    let indirect: Array<Node> | undefined
    let visited: Set<string> | undefined
    for (const member of group) {
      if (!placed.has(member.uuid)) (blocks ??= []).push(member)
      const memberChildren = children.get(member.uuid)
      if (memberChildren === undefined) continue
      for (const child of memberChildren) {
        if (placed.has(child.uuid) || visited?.has(child.uuid)) continue
        ;(visited ??= new Set()).add(child.uuid)
        const parent = graph.parents.get(child.uuid)
        if (parent !== undefined && inGroup(parent)) (direct ??= []).push(child)
        else (indirect ??= []).push(child)
      }
    }
    if (indirect !== undefined) {
      const covered = new Set(answered)
      for (const child of direct ?? []) {
        for (const toolUseId of blockIds(child, "tool_result", "tool_use_id")) covered.add(toolUseId)
      }
      indirect.sort((a, b) => a.order - b.order)
      for (const child of indirect) {
        const ids = blockIds(child, "tool_result", "tool_use_id")
        const answersGroup = ids.some((toolUseId) => {
          const owner = toolUseOwner.get(toolUseId)
          return !covered.has(toolUseId) && owner !== undefined && owner !== null && inGroup(owner.uuid)
        })
        if (!answersGroup) continue
        for (const toolUseId of ids) covered.add(toolUseId)
        ;(direct ??= []).push(child)
      }
    }
    if (blocks === undefined && direct === undefined) continue
    const inserted = [...(blocks ?? []).sort(byTimestamp), ...(direct ?? []).sort(byTimestamp)]
    for (const node of inserted) placed.add(node.uuid)
    const anchor = lastOnChain.get(id) ?? assistant
    after.set(anchor.uuid, inserted)
  }
  if (after.size === 0) return plain()
  const items: Array<ConversationItem> = []
  for (const node of chain) {
    items.push(toItem(node, false))
    const extras = after.get(node.uuid)
    if (extras !== undefined) { for (const extra of extras) items.push(toItem(extra, true)) }
  }
  return items
}

/**
 * The main conversation, oldest first, across every compaction: the newest non-sidechain leaf,
 * its chain back to the first entry (through each compact boundary's `logicalParentUuid`), with
 * orphaned blocks and tool results spliced in. Empty when there is no user or assistant entry.
 *
 * @since 0.1.0
 * @category reconstruction
 */
export const conversation = (entries: ReadonlyArray<Transcript.TranscriptEntry>): Array<ConversationItem> => {
  const graph = buildGraph(entries)
  const terminal = findTerminal(graph)
  if (terminal === undefined) return []
  return splice(graph, walk(graph, terminal))
}

/**
 * The chain from the first entry to the entry `uuid` (inclusive), across compactions as
 * {@link conversation} does, without splicing. Empty when no conversation entry has that uuid.
 *
 * @since 0.1.0
 * @category reconstruction
 */
export const ancestry = (entries: ReadonlyArray<Transcript.TranscriptEntry>, uuid: string): Array<ConversationItem> => {
  const graph = buildGraph(entries)
  const node = graph.nodes.get(uuid)
  return node === undefined ? [] : walk(graph, node).map((item) => toItem(item, false))
}

/**
 * The inline sidechains (entries with `isSidechain: true` in the main transcript, as older CLI
 * versions wrote subagent turns), one per `agentId` (or per chain root when there is none), in
 * order of their first entry.
 *
 * @since 0.1.0
 * @category reconstruction
 */
export const sidechains = (entries: ReadonlyArray<Transcript.TranscriptEntry>): Array<Sidechain> => {
  const graph = buildGraph(entries)
  const sideNodes = [...graph.nodes.values()].filter((node) => node.isSidechain).sort((a, b) => a.index - b.index)
  const rootOf = (node: Node): Node => {
    const seen = new Set<string>()
    let current = node
    while (!seen.has(current.uuid)) {
      seen.add(current.uuid)
      const parent = current.parent === undefined ? undefined : graph.nodes.get(current.parent)
      if (parent === undefined || !parent.isSidechain) break
      current = parent
    }
    return current
  }
  const groups = new Map<string, { agentId: string | undefined; rootUuid: string; entries: Array<ConversationItem> }>()
  for (const node of sideNodes) {
    const agentId = str(node.obj["agentId"])
    const root = rootOf(node)
    const key = agentId !== undefined ? `agent:${agentId}` : `root:${root.uuid}`
    const group = groups.get(key)
    if (group) group.entries.push(toItem(node, false))
    else groups.set(key, { agentId, rootUuid: root.uuid, entries: [toItem(node, false)] })
  }
  return [...groups.values()]
}
