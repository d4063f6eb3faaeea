// Session: one session's whole conversation, streamed in (items render as they arrive, in
// batches as the reader scrolls), then kept live over server-sent events. `?turn=<uuid or
// tool_use id>` scrolls to that turn and highlights it (`&agent=<agentId>`: a turn of that
// subagent's transcript, which loads on demand: its Task call is the one shown); j/k (or the
// arrow keys on a turn) move between turns.
import type { Item } from "@acx/convert/SessionItem"
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { rowsOf, type SessionHeader, type SessionLine, turnCount } from "../../src/SessionView.js"
import { streamJsonLines } from "../api.js"
import { AttachmentsView, type ItemContext, ItemView } from "../components/SessionItems.js"
import * as format from "../format.js"
import { href, type Route } from "../router.js"

// Top-level items rendered at first and added each time the end of the list comes into view.
const BATCH = 300

interface View {
  readonly order: Array<string>
  readonly byKey: Map<string, Item>
}

const upsert = (view: View, items: ReadonlyArray<Item>) => {
  for (const item of items) {
    if (!view.byKey.has(item.key)) view.order.push(item.key)
    view.byKey.set(item.key, item)
  }
}

const holds = (item: Item, turn: string): boolean =>
  item.uuids.includes(turn) || ("parts" in item && item.parts.some((part) => part.type === "tool" && part.id === turn))

const CopyButton = ({ text }: { readonly text: string }) => {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle")
  return (
    <button
      onClick={() =>
        navigator.clipboard.writeText(text).then(() => setState("copied"), () => setState("failed")).finally(() =>
          setTimeout(() => setState("idle"), 2000)
        )}
      aria-live="polite"
    >
      {state === "copied" ? "Copied ✓" : state === "failed" ? "Copy failed" : "Copy"}
    </button>
  )
}

const Header = (
  { header, live, mask, onMask }: {
    readonly header: SessionHeader
    readonly live: boolean
    readonly mask: boolean
    readonly onMask: (mask: boolean) => void
  }
) => {
  // the session's figure with its subagents, as the list, the costs page and acx stats show it
  const { usage } = header
  const exportUrl = (format_: string) =>
    `/api/session/${encodeURIComponent(header.sessionId)}/export?format=${format_}&mask=${mask ? 1 : 0}`
  return (
    <header class="session-head">
      <p class="muted crumbs">
        <a href={href("sessions", undefined, { project: header.projectKey })}>{header.project}</a>
        {header.gitBranch !== null && ` · ${header.gitBranch}`}
        {live && <span class="badge live" title="New lines appear as Claude Code writes them">live</span>}
      </p>
      <h1>{header.title ?? `Session ${header.sessionId.slice(0, 8)}`}</h1>
      <p class="muted mono id-line">
        {header.sessionId}
        {header.cwd !== null && ` · ${header.cwd}`}
      </p>
      <div class="resume">
        <code>{header.resume}</code>
        <CopyButton text={header.resume} />
      </div>
      <div class="toolbar">
        <span>
          {format.dateTime(header.startTime)}
          {header.lastTime !== null && ` → ${format.dateTime(header.lastTime)}`}
          {/* a store keeps entries, not a file: no size */}
          {header.bytes > 0 && ` · ${format.bytes(header.bytes)}`}
          {" · "}
          {usage === null
            ? <span class="figure muted">… tokens</span>
            : (
              <span class="figure" data-tokens={usage.tokens} data-cost={usage.costUSD}>
                {format.count(usage.tokens)} tokens · {format.usd(usage.costUSD)}
                {usage.unpriced.length > 0 ? "+?" : ""}
              </span>
            )}
          {header.subagents.length > 0 &&
            ` · ${header.subagents.length} subagent${header.subagents.length > 1 ? "s" : ""}`}
        </span>
        <span class="exports">
          Export: {(["markdown", "anthropic", "jsonl"] as const).map((f) => (
            <a key={f} href={exportUrl(f)} download>
              {f}
            </a>
          ))}
        </span>
        <label>
          <input type="checkbox" checked={!mask} onChange={(e) => onMask(!e.currentTarget.checked)} /> Show secrets
        </label>
      </div>
    </header>
  )
}

/**
 * The session streamed in, then kept live over server-sent events: its header, its items (in
 * `view`, `version` moving once per animation frame as they arrive), and `reloads` counting the
 * times the server said to read it afresh (a rewritten transcript).
 */
const useSessionStream = (id: string, mask: boolean) => {
  const [reloads, setReloads] = useState(0)
  const [header, setHeader] = useState<SessionHeader | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [version, setVersion] = useState(0)
  const [done, setDone] = useState(false)
  const [live, setLive] = useState(false)
  const view = useRef<View>({ order: [], byKey: new Map() })

  useEffect(() => {
    view.current = { order: [], byKey: new Map() }
    setHeader(undefined)
    setError(undefined)
    setDone(false)
    setLive(false)
    setVersion((v) => v + 1)
    const abort = new AbortController()
    let events: EventSource | undefined
    // one render per animation frame, however many batches arrived in it
    let frame = 0
    const changed = () => {
      if (frame === 0) {
        frame = requestAnimationFrame(() => {
          frame = 0
          setVersion((v) => v + 1)
        })
      }
    }
    const onLine = (line: SessionLine) => {
      if (line.type === "header") setHeader(line.header)
      else if (line.type === "items") {
        upsert(view.current, line.items)
        changed()
      } else if (line.type === "subagents") {
        setHeader((h) => h === undefined ? h : { ...h, subagents: line.subagents })
      } else if (line.type === "usage") {
        setHeader((h) => h === undefined ? h : { ...h, usage: line.usage })
      } else if (line.type === "reload") {
        events?.close()
        setReloads((n) => n + 1)
      }
    }
    const maskQuery = mask ? "" : "&mask=0"
    let end = 0
    streamJsonLines<SessionLine>(`/api/session/${encodeURIComponent(id)}?${maskQuery.slice(1)}`, (line) => {
      if (line.type === "end") end = line.bytes
      else onLine(line)
    }, abort.signal).then(() => {
      if (abort.signal.aborted) return
      setDone(true)
      changed()
      events = new EventSource(`/api/session/${encodeURIComponent(id)}/events?from=${end}${maskQuery}`)
      events.onopen = () => setLive(true)
      events.onerror = () => setLive(false)
      events.onmessage = (message: MessageEvent<string>) => onLine(JSON.parse(message.data) as SessionLine)
    }, (e: Error) => {
      if (!abort.signal.aborted) setError(e.message)
    })
    return () => {
      abort.abort()
      events?.close()
      cancelAnimationFrame(frame)
    }
  }, [id, mask, reloads])

  // top-level items, and inline sidechain items under the tool call they belong to
  const { nested, top } = useMemo(() => {
    const top: Array<Item> = []
    const nested = new Map<string, Array<Item>>()
    for (const key of view.current.order) {
      const item = view.current.byKey.get(key)!
      if (item.within === undefined) top.push(item)
      else nested.set(item.within, [...(nested.get(item.within) ?? []), item])
    }
    return { nested, top }
  }, [version])
  return { header, error, done, live, reloads, nested, top }
}

/**
 * The turn asked for: rendered (the list grows to it), opened, scrolled to, highlighted. A turn
 * inside a subagent's transcript is shown at the Task call that started the subagent.
 */
const useTurnFocus = ({ agent, asked, limit, nested, setLimit, top }: {
  readonly asked: string | undefined
  readonly agent: string | undefined
  readonly top: ReadonlyArray<Item>
  readonly nested: ReadonlyMap<string, ReadonlyArray<Item>>
  readonly limit: number
  readonly setLimit: (limit: number) => void
}) => {
  const turn = useMemo(() => {
    if (agent === undefined) return asked
    for (const item of top) {
      if (!("parts" in item)) continue
      const call = item.parts.find((part) => part.type === "tool" && part.agentId === agent)
      if (call !== undefined && call.type === "tool") return call.id
    }
    return asked
  }, [asked, agent, top])

  const [found, setFound] = useState<string | undefined>()
  useEffect(() => {
    if (turn === undefined || found === turn) return
    const index = top.findIndex((item) =>
      holds(item, turn) ||
      ("parts" in item && item.parts.some((part) =>
        part.type === "tool" && (nested.get(part.id) ?? []).some((inner) => holds(inner, turn))
      ))
    )
    if (index < 0) return
    if (index >= limit) {
      setLimit(index + BATCH)
      return
    }
    const element = document.getElementById(`tool-${turn}`) ?? document.getElementById(`turn-${turn}`)
    if (element === null) return
    for (let node: HTMLElement | null = element; node !== null; node = node.parentElement) {
      if (node instanceof HTMLDetailsElement) node.open = true
    }
    const target = element.closest<HTMLElement>("[data-turn]") ?? element
    element.classList.add("highlight")
    target.classList.add("highlight")
    element.scrollIntoView({ block: "center" })
    target.focus({ preventScroll: true })
    setFound(turn)
  }, [turn, top, limit, found, nested])
}

// j/k and the arrow keys (on a turn) move between turns
const onTurnKey = (event: KeyboardEvent) => {
  const target = event.target as HTMLElement | null
  if (event.altKey || event.ctrlKey || event.metaKey) return
  if (target !== null && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return
  const onTurn = target?.closest("[data-turn]") !== null && target?.closest("[data-turn]") !== undefined
  const down = event.key === "j" || (onTurn && event.key === "ArrowDown")
  const up = event.key === "k" || (onTurn && event.key === "ArrowUp")
  if (!down && !up) return
  const turns = [...document.querySelectorAll<HTMLElement>(".turns > [data-turn]")]
  if (turns.length === 0) return
  const current = target?.closest<HTMLElement>(".turns > [data-turn]")
  const at = current === null || current === undefined ? -1 : turns.indexOf(current)
  const next = turns[Math.max(0, Math.min(turns.length - 1, at < 0 ? 0 : at + (down ? 1 : -1)))]!
  event.preventDefault()
  next.focus({ preventScroll: true })
  next.scrollIntoView({ block: "nearest" })
}

export const SessionPage = ({ route }: { readonly route: Route }) => {
  const id = route.id ?? ""
  const [mask, setMask] = useState(true)
  const { done, error, header, live, nested, reloads, top } = useSessionStream(id, mask)
  const [limit, setLimit] = useState(BATCH)
  const sentinel = useRef<HTMLDivElement>(null)
  useEffect(() => setLimit(BATCH), [id, mask, reloads])
  const turns = useMemo(() => turnCount(top), [top])
  useTurnFocus({
    asked: route.query.get("turn") ?? undefined,
    agent: route.query.get("agent") ?? undefined,
    top,
    nested,
    limit,
    setLimit
  })

  const ctx: ItemContext = useMemo(() => ({
    sessionId: header?.sessionId ?? id,
    agent: undefined,
    mask,
    subagents: new Map((header?.subagents ?? []).map((row) => [row.agentId, row])),
    nested
  }), [header, id, mask, nested])

  // more of the list when its end comes into view
  useEffect(() => {
    const element = sentinel.current
    if (element === null) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) setLimit((n) => n + BATCH)
    }, { rootMargin: "800px" })
    observer.observe(element)
    return () => observer.disconnect()
  }, [top.length > limit])

  useEffect(() => {
    addEventListener("keydown", onTurnKey)
    return () => removeEventListener("keydown", onTurnKey)
  }, [])

  if (error !== undefined) {
    return (
      <section class="page">
        <p class="error" role="alert">{error}</p>
        <p>
          <a href={href("sessions")}>Back to the sessions</a>
        </p>
      </section>
    )
  }
  if (header === undefined) return <p class="loading">Loading the session…</p>
  return (
    <section class="page session">
      <Header header={header} live={live} mask={mask} onMask={setMask} />
      <p class="muted keys">
        {done ? `${turns} turns` : `${turns} turns so far…`} · <kbd>j</kbd>/<kbd>k</kbd> move between turns
      </p>
      <div class="turns">
        {rowsOf(top.slice(0, limit)).map((row) =>
          row._tag === "Item"
            ? <ItemView key={row.item.key} item={row.item} ctx={ctx} />
            : <AttachmentsView key={row.key} items={row.items} ctx={ctx} />
        )}
      </div>
      {top.length > limit && (
        <div ref={sentinel} class="more-turns">
          <button onClick={() => setLimit((n) => n + BATCH)}>
            Show more ({turnCount(top.slice(limit))} more turns)
          </button>
        </div>
      )}
    </section>
  )
}
