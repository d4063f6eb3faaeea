// The session page's items: prompts, assistant turns (Markdown, thinking, tool calls with their
// results and nested subagents), compaction points, system notes, unknown entries. Every text
// from the transcript is rendered as text (escaped by Preact), except assistant Markdown, which
// goes through web/markdown.ts only. Heavy parts (cut texts, images, subagents, raw JSON) load
// or render on demand.
import type { BlockRef, ImagePart, Item, Part, Text, ToolPart, TurnUsage } from "@acx/convert/SessionItem"
import type { ComponentChildren } from "preact"
import { useState } from "preact/hooks"
import type { BlockResponse, SessionLine, SubagentRow } from "../../src/SessionView.js"
import { getJson, streamJsonLines } from "../api.js"
import * as format from "../format.js"
import { renderMarkdown } from "../markdown.js"
import { displayHint, ToolDisplayView } from "./ToolDisplayView.js"

/** Where the items come from: the session, the subagent (if any), masking on or off. */
export interface ItemContext {
  readonly sessionId: string
  readonly agent: string | undefined
  readonly mask: boolean
  /** The session's subagent transcripts (a tool call naming one nests it). */
  readonly subagents: ReadonlyMap<string, SubagentRow>
  /** Inline sidechain items by the tool call they belong to. */
  readonly nested: ReadonlyMap<string, ReadonlyArray<Item>>
}

const query = (ctx: ItemContext, extra: Record<string, string | number | undefined>): string => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) params.set(key, String(value))
  if (ctx.agent !== undefined) params.set("agent", ctx.agent)
  if (!ctx.mask) params.set("mask", "0")
  return params.toString()
}

const blockUrl = (ctx: ItemContext, ref: BlockRef): string =>
  `/api/session/${encodeURIComponent(ctx.sessionId)}/block?${
    query(ctx, { line: ref.line, block: ref.block, sub: ref.sub })
  }`

/** A text that may have been cut: the shown part, and a button that loads the rest. */
const CutText = (
  { ctx, markdown = false, refOf, text }: {
    readonly ctx: ItemContext
    readonly text: Text
    readonly refOf: BlockRef
    readonly markdown?: boolean
  }
) => {
  const [full, setFull] = useState<string | undefined>()
  const [state, setState] = useState<"idle" | "loading" | string>("idle")
  const shown = full ?? text.text
  const cut = full === undefined && text.size > text.text.length
  const load = () => {
    setState("loading")
    getJson<BlockResponse>(blockUrl(ctx, refOf)).then((body) => {
      if ("text" in body) setFull(body.text)
      setState("idle")
    }, (e: Error) => setState(e.message))
  }
  return (
    <>
      {markdown
        // markdown-it output with raw HTML off and only http(s)/mailto links: see web/markdown.ts
        ? <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(shown) }} />
        : <pre class="text">{shown}</pre>}
      {cut && (
        <button class="more" onClick={load} disabled={state === "loading"}>
          {state === "loading" ? "Loading…" : `Show all ${format.bytes(text.size)}`}
        </button>
      )}
      {state !== "idle" && state !== "loading" && <span class="error">{state}</span>}
    </>
  )
}

const ImageView = ({ ctx, part }: { readonly ctx: ItemContext; readonly part: ImagePart }) => {
  const [src, setSrc] = useState<string | undefined>()
  const [error, setError] = useState<string | undefined>()
  if (src !== undefined) return <img class="transcript-image" src={src} alt={`image (${part.mediaType})`} />
  return (
    <span>
      <button
        class="more"
        onClick={() =>
          getJson<BlockResponse>(blockUrl(ctx, part.ref)).then(
            (body) => "dataUrl" in body ? setSrc(body.dataUrl) : setError("not an image"),
            (e: Error) => setError(e.message)
          )}
      >
        Show image ({part.mediaType}, {format.bytes(Math.round(part.size * 0.75))})
      </button>
      {error !== undefined && <span class="error">{error}</span>}
    </span>
  )
}

const usageLine = (usage: TurnUsage, model: string | undefined): string =>
  [
    model,
    `in ${format.count(usage.input)}`,
    `out ${format.count(usage.output)}`,
    usage.cacheRead > 0 ? `cache read ${format.count(usage.cacheRead)}` : undefined,
    usage.cacheWrite > 0 ? `cache write ${format.count(usage.cacheWrite)}` : undefined,
    usage.costUSD === null ? "no price" : format.usd(usage.costUSD)
  ].filter((part) => part !== undefined).join(" · ")

// A one-line hint of what a tool call did: its command, path, pattern or description.
const toolHint = (part: ToolPart): string => {
  if (part.display !== undefined) return displayHint(part.display)
  try {
    const input = JSON.parse(part.input.text) as Record<string, unknown>
    for (const key of ["description", "command", "file_path", "path", "pattern", "url", "query", "prompt"]) {
      const value = input[key]
      if (typeof value === "string" && value !== "") return value.split("\n")[0]!.slice(0, 120)
    }
  } catch {
    // a cut input is not JSON: no hint
  }
  return ""
}

/** A subagent transcript, loaded when opened. */
const SubagentView = ({ ctx, row }: { readonly ctx: ItemContext; readonly row: SubagentRow }) => {
  const [items, setItems] = useState<ReadonlyArray<Item> | undefined>()
  const [error, setError] = useState<string | undefined>()
  const load = () => {
    if (items !== undefined) return
    const byKey = new Map<string, Item>()
    const url = `/api/session/${encodeURIComponent(ctx.sessionId)}/subagent/${encodeURIComponent(row.agentId)}${
      ctx.mask ? "" : "?mask=0"
    }`
    streamJsonLines<SessionLine>(url, (line) => {
      if (line.type !== "items") return
      for (const item of line.items) byKey.set(item.key, item)
      setItems([...byKey.values()])
    }).then(() => setItems([...byKey.values()]), (e: Error) => setError(e.message))
  }
  const inner: ItemContext = { ...ctx, agent: row.agentId, nested: new Map() }
  return (
    <details class="subagent" onToggle={(e) => e.currentTarget.open && load()}>
      <summary>
        Subagent {row.agentType ?? ""} <span class="muted mono">{row.agentId}</span>
        {row.description !== null && <span class="muted">— {row.description}</span>}
      </summary>
      {error !== undefined && <p class="error">{error}</p>}
      {items === undefined && error === undefined && <p class="loading">Loading the subagent…</p>}
      {items?.map((item) => <ItemView key={item.key} item={item} ctx={inner} />)}
    </details>
  )
}

const ToolView = ({ ctx, part }: { readonly ctx: ItemContext; readonly part: ToolPart }) => {
  const nested = ctx.nested.get(part.id) ?? []
  const agent = part.agentId === undefined ? undefined : ctx.subagents.get(part.agentId)
  const status = part.result === undefined ? "running" : part.result.isError ? "error" : "done"
  return (
    <details class={`tool ${status}`} id={`tool-${part.id}`}>
      <summary>
        <span class="tool-name">{part.name}</span> <span class="muted clip-inline">{toolHint(part)}</span>
        <span class={`badge ${status === "error" ? "warn" : ""}`}>{status}</span>
        {(agent !== undefined || nested.length > 0) && <span class="badge">subagent</span>}
      </summary>
      <div class="tool-body">
        {part.display === undefined
          ? (
            <>
              <div class="label">Input</div>
              <CutText ctx={ctx} text={part.input} refOf={part.ref} />
            </>
          )
          : (
            <>
              <ToolDisplayView display={part.display} />
              <details class="raw raw-input">
                <summary>Raw input (JSON)</summary>
                <CutText ctx={ctx} text={part.input} refOf={part.ref} />
              </details>
            </>
          )}
        {part.result !== undefined && (
          <>
            <div class="label">{part.result.isError ? "Error" : "Result"}</div>
            <CutText ctx={ctx} text={part.result.text} refOf={part.result.ref} />
            {part.result.images.map((image, i) => <ImageView key={i} ctx={ctx} part={image} />)}
          </>
        )}
        {nested.length > 0 && (
          <details class="subagent">
            <summary>Subagent (inline, {nested.length} entries)</summary>
            {nested.map((item) => <ItemView key={item.key} item={item} ctx={ctx} />)}
          </details>
        )}
        {agent !== undefined && <SubagentView ctx={ctx} row={agent} />}
      </div>
    </details>
  )
}

const PartView = ({ ctx, part }: { readonly ctx: ItemContext; readonly part: Part }) => {
  switch (part.type) {
    case "text":
      return <CutText ctx={ctx} text={part.text} refOf={part.ref} markdown />
    case "thinking":
      return (
        <details class="thinking">
          <summary>Thinking</summary>
          <CutText ctx={ctx} text={part.text} refOf={part.ref} />
        </details>
      )
    case "command":
      return <code class="slash-command">{part.command}</code>
    case "output":
      return (
        <div class={`command-output${part.isError ? " error-output" : ""}`}>
          <CutText ctx={ctx} text={part.text} refOf={part.ref} />
        </div>
      )
    case "image":
      return <ImageView ctx={ctx} part={part} />
    case "tool":
      return <ToolView ctx={ctx} part={part} />
    case "other":
      return (
        <details class="raw">
          <summary>{part.blockType} block</summary>
          <CutText ctx={ctx} text={part.raw} refOf={part.ref} />
        </details>
      )
  }
}

const Anchors = ({ uuids }: { readonly uuids: ReadonlyArray<string> }) => (
  <>{uuids.slice(1).map((uuid) => <span key={uuid} id={`turn-${uuid}`} />)}</>
)

const Shell = (
  { children, item, label, meta }: {
    readonly item: Item
    readonly label: string
    readonly meta?: string | undefined
    readonly children: ComponentChildren
  }
) => (
  <article
    class={`turn ${item.kind}${item.sidechain ? " sidechain" : ""}`}
    id={item.uuids[0] === undefined ? `line-${item.line}` : `turn-${item.uuids[0]}`}
    data-turn={item.key}
    tabIndex={-1}
  >
    <Anchors uuids={item.uuids} />
    <header class="turn-head">
      <span class="who">{label}</span>
      {meta !== undefined && meta !== "" && <span class="muted">{meta}</span>}
      <span class="muted time">{format.dateTime(item.timestamp)}</span>
    </header>
    {children}
  </article>
)

// A prompt that is only a command (or only its output) says so.
const promptLabel = (item: Extract<Item, { kind: "prompt" }>): string =>
  item.sidechain
    ? "Prompt (subagent)"
    : item.parts.every((part) => part.type === "command")
    ? "Command"
    : item.parts.every((part) => part.type === "output")
    ? "Command output"
    : "You"

/** One item of the page. */
export const ItemView = ({ ctx, item }: { readonly ctx: ItemContext; readonly item: Item }) => {
  switch (item.kind) {
    case "prompt":
      return (
        <Shell item={item} label={promptLabel(item)}>
          {item.parts.map((part, i) =>
            part.type === "text"
              ? <CutText key={i} ctx={ctx} text={part.text} refOf={part.ref} />
              : <PartView key={i} ctx={ctx} part={part} />
          )}
        </Shell>
      )
    case "assistant":
    case "results":
      return (
        <Shell
          item={item}
          label={item.kind === "results" ? "Tool results" : item.sidechain ? "Assistant (subagent)" : "Assistant"}
          meta={item.kind === "assistant" && item.usage !== undefined
            ? usageLine(item.usage, item.model)
            : item.kind === "assistant"
            ? item.model
            : undefined}
        >
          {item.parts.map((part, i) => <PartView key={i} ctx={ctx} part={part} />)}
        </Shell>
      )
    case "compaction":
      return (
        <Shell
          item={item}
          label="Conversation compacted"
          meta={[
            item.trigger,
            item.preTokens === undefined ? undefined : `${format.count(item.preTokens)} tokens before`
          ]
            .filter((part) => part !== undefined).join(" · ")}
        >
          {item.summary !== undefined && (
            <details>
              <summary>Compaction summary</summary>
              <CutText ctx={ctx} text={item.summary} refOf={item.summary.ref} />
            </details>
          )}
        </Shell>
      )
    case "meta":
    case "system":
      return (
        <Shell item={item} label={item.kind === "meta" ? item.label : `system: ${item.subtype}`}>
          <details class="note">
            <summary class="clip-inline">{item.text.text.split("\n")[0]!.slice(0, 160)}</summary>
            <CutText ctx={ctx} text={item.text} refOf={item.ref} />
          </details>
        </Shell>
      )
    case "unknown":
      return (
        <Shell item={item} label={`unknown entry ${item.type}`}>
          <details class="raw">
            <summary>Raw JSON</summary>
            <CutText ctx={ctx} text={item.raw} refOf={item.ref} />
          </details>
        </Shell>
      )
    case "too-large":
      return (
        <Shell item={item} label={`line ${item.line}`}>
          <p>
            Too large, {format.bytes(item.bytes)}: not shown.{" "}
            <a
              href={`/api/session/${encodeURIComponent(ctx.sessionId)}/line/${item.line}?${query(ctx, {})}`}
              download
            >
              Download the line
            </a>
          </p>
        </Shell>
      )
    case "malformed":
      return (
        <Shell item={item} label={`line ${item.line}`}>
          <p class="muted">Not a transcript entry: {item.description}</p>
        </Shell>
      )
  }
}

/**
 * The attachments Claude Code recorded together (its environment, the skills and tools it lists,
 * the date, …): one quiet line naming them, each opening on demand. Not a turn (`j`/`k` pass it).
 */
export const AttachmentsView = (
  { ctx, items }: {
    readonly ctx: ItemContext
    readonly items: ReadonlyArray<Extract<Item, { kind: "meta" }>>
  }
) => {
  const names = items.map((item) => item.label.replace(/^attachment(: )?/, "") || "attachment")
  return (
    <details class="attachments">
      <summary class="muted">
        {items.length === 1 ? "1 attachment" : `${items.length} attachments`}: {names.join(", ")}
      </summary>
      {items.map((item, i) => (
        <section
          key={item.key}
          class="attachment"
          id={item.uuids[0] === undefined ? `line-${item.line}` : `turn-${item.uuids[0]}`}
        >
          <Anchors uuids={item.uuids} />
          <details class="note">
            <summary class="clip-inline">{names[i]}</summary>
            <CutText ctx={ctx} text={item.text} refOf={item.ref} />
          </details>
        </section>
      ))}
    </details>
  )
}
