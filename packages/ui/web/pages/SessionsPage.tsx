// Sessions: every project's sessions, newest first, with the machine each came from (and its user
// when there are several), filters by project, machine, user and text, 50 rows at first (a screen
// holds a dozen: the fewer rows, the sooner the first is drawn) and the next 50 as the list is
// scrolled to its end; usage (messages, tokens, cost) fills in when its folds are read, and a
// session that cost far more than its project's usual is flagged. Above
// them, search inside every conversation (SearchPanel). The server keeps the list and sends it a
// page at a time, filtered (GET /api/sessions?offset=&limit=&…): nothing on the way to the first
// row reads every session. /api/sessions/events says when the list changed, and the rows shown
// (then their usage) are read again.
import { useEffect, useRef, useState } from "preact/hooks"
import type { SessionRow, SessionsEvent, SessionsResponse, SessionUsage, UsageResponse } from "../../src/UiApi.js"
import { getJson } from "../api.js"
import { SearchPanel } from "../components/SearchPanel.js"
import * as format from "../format.js"
import { href, type Route } from "../router.js"

const PAGE_SIZE = 50
// the rows read again when the list changed: as many as are shown, within one request's limit
const MAX_LIMIT = 1000

// where a session came from; a store's session without a recorded origin is unknown
const originOf = (list: SessionsResponse, row: SessionRow) =>
  list.origins[`${row.projectKey}/${row.sessionId}`] ??
    { machine: "unknown", user: "unknown", project: row.projectKey }

const OriginSelect = (
  { all, label, onChange, value, values }: {
    readonly label: string
    readonly all: string
    readonly values: ReadonlyArray<string>
    readonly value: string
    readonly onChange: (value: string) => void
  }
) => (
  <label>
    {label}{" "}
    <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      <option value="">{all} ({values.length})</option>
      {values.map((name) => <option value={name} key={name}>{name}</option>)}
    </select>
  </label>
)

/** The list's filters; a project across machines, a machine, a user, and words. */
interface SessionsFilter {
  readonly project: string
  readonly projectId: string
  readonly machine: string
  readonly user: string
  readonly text: string
}

const listUrl = (filter: SessionsFilter, offset: number, limit: number): string => {
  const params = new URLSearchParams({ offset: String(offset), limit: String(limit) })
  const { machine, project, projectId, text, user } = filter
  const filters = { project, projectId, machine, user, q: text }
  for (const [name, value] of Object.entries(filters)) if (value !== "") params.set(name, value)
  return `/api/sessions?${params.toString()}`
}

// The rows read so far and the next page appended: its origins merged, the rest as last sent.
const appended = (list: SessionsResponse, next: SessionsResponse): SessionsResponse => ({
  ...next,
  offset: list.offset,
  sessions: [...list.sessions, ...next.sessions],
  origins: { ...list.origins, ...next.origins }
})

/** `changed` (read the list again) and `reconnecting` from the list's event stream. */
const useListEvents = () => {
  const [version, setVersion] = useState(0)
  const [reconnecting, setReconnecting] = useState(false)
  useEffect(() => {
    const events = new EventSource("/api/sessions/events")
    events.onmessage = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as SessionsEvent
      setReconnecting(event.type === "reconnecting")
      if (event.type === "changed") setVersion((v) => v + 1)
    }
    return () => events.close()
  }, [])
  return { version, reconnecting }
}

/**
 * The first page of the sessions that match `filter` (read again, as many rows as were shown,
 * when the server says the list changed), the next pages on demand, and every session's usage
 * once the first rows are shown.
 */
const useSessions = (filter: SessionsFilter) => {
  const [list, setList] = useState<SessionsResponse | undefined>()
  const [usage, setUsage] = useState<ReadonlyMap<string, SessionUsage> | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [loadingMore, setLoadingMore] = useState(false)
  const { reconnecting, version } = useListEvents()
  const shown = useRef({ filter, rows: PAGE_SIZE })
  const more = useRef<AbortController | undefined>(undefined)

  useEffect(() => {
    const abort = new AbortController()
    more.current?.abort()
    // other filters: their first page; the list changed: the rows shown, read again
    if (shown.current.filter !== filter) shown.current = { filter, rows: PAGE_SIZE }
    const limit = Math.min(MAX_LIMIT, Math.max(PAGE_SIZE, shown.current.rows))
    getJson<SessionsResponse>(listUrl(filter, 0, limit), abort.signal).then((body) => {
      shown.current = { filter, rows: body.sessions.length }
      setList(body)
      setLoadingMore(false)
    }, (e: Error) => {
      if (!abort.signal.aborted) setError(e.message)
    })
    return () => abort.abort()
  }, [filter, version])

  // usage folds every transcript: asked for once the first rows are there, never before them
  const listed = list !== undefined
  useEffect(() => {
    if (!listed) return
    const abort = new AbortController()
    getJson<UsageResponse>("/api/sessions/usage", abort.signal).then(
      (usage) => setUsage(new Map(usage.sessions.map((row) => [row.sessionId, row]))),
      () => {
        if (!abort.signal.aborted) setUsage(new Map())
      }
    )
    return () => abort.abort()
  }, [listed, version])

  const loadMore = () => {
    if (list === undefined || loadingMore || list.sessions.length >= list.matched) return
    const abort = new AbortController()
    more.current = abort
    setLoadingMore(true)
    getJson<SessionsResponse>(listUrl(filter, list.sessions.length, PAGE_SIZE), abort.signal).then((next) => {
      setList((current) => {
        if (current === undefined) return current
        const joined = appended(current, next)
        shown.current = { filter, rows: joined.sessions.length }
        return joined
      })
      setLoadingMore(false)
    }, (e: Error) => {
      if (!abort.signal.aborted) setError(e.message)
    })
  }
  return { list, usage, error, reconnecting, loadingMore, loadMore }
}

/** One session's row: its title and first prompt, where it came from, when, and its usage. */
const SessionRowView = ({ list, names, row, used, users }: {
  readonly list: SessionsResponse
  readonly row: SessionRow
  readonly names: ReadonlyMap<string, string>
  readonly used: SessionUsage | undefined
  readonly users: number
}) => (
  <tr class={used?.outlier === true ? "outlier" : undefined}>
    <td class="title-cell">
      <a href={href("session", row.sessionId)}>{row.title ?? row.firstPrompt ?? row.sessionId}</a>
      {row.title !== undefined && row.firstPrompt !== undefined && <div class="muted clip">{row.firstPrompt}</div>}
      <div class="muted mono">
        {row.sessionId.slice(0, 8)}
        {row.gitBranch !== undefined && ` · ${row.gitBranch}`}
      </div>
    </td>
    <td class="col-project" title={originOf(list, row).project}>
      {names.get(row.projectKey) ?? row.projectKey}
    </td>
    <td class="machine">{originOf(list, row).machine}</td>
    {users > 1 && <td class="user">{originOf(list, row).user}</td>}
    <td class="col-started">{format.dateTime(row.startTime)}</td>
    <td>{format.dateTime(row.lastTime ?? row.mtime)}</td>
    <td class="num col-messages">{used === undefined ? "…" : used.messages}</td>
    <td class="num">{used === undefined ? "…" : format.count(used.tokens)}</td>
    <td class="num">
      {used === undefined ? "…" : format.usd(used.costUSD) + (used.unpriced.length > 0 ? "+?" : "")}
      {used?.outlier === true && (
        <span class="badge warn" title="Cost far more than this project's usual session">
          unusual
        </span>
      )}
    </td>
  </tr>
)

const SessionsTable = ({ list, rows, usage, users }: {
  readonly list: SessionsResponse
  readonly rows: ReadonlyArray<SessionRow>
  readonly usage: ReadonlyMap<string, SessionUsage> | undefined
  readonly users: number
}) => {
  const names = new Map(list.projects.map((p) => [p.projectKey, p.name]))
  return (
    <div class="table-wrap">
      <table class="sessions-table">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col" class="col-project">Project</th>
            <th scope="col" class="machine">Machine</th>
            {users > 1 && <th scope="col" class="user">User</th>}
            <th scope="col" class="col-started">Started</th>
            <th scope="col">Last activity</th>
            <th scope="col" class="num col-messages">Messages</th>
            <th scope="col" class="num">Tokens</th>
            <th scope="col" class="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <SessionRowView
              key={row.sessionId}
              list={list}
              row={row}
              names={names}
              used={usage?.get(row.sessionId)}
              users={users}
            />
          ))}
        </tbody>
      </table>
    </div>
  )
}

const SessionsToolbar = ({ filter, list, machines, onChange, users }: {
  readonly list: SessionsResponse
  readonly filter: SessionsFilter
  readonly machines: ReadonlyArray<string>
  readonly users: ReadonlyArray<string>
  readonly onChange: (change: Partial<SessionsFilter>) => void
}) => (
  <div class="toolbar">
    <label>
      Project{" "}
      <select value={filter.project} onChange={(e) => onChange({ project: e.currentTarget.value })}>
        <option value="">All projects ({list.projects.length})</option>
        {list.projects.map((p) => (
          <option value={p.projectKey} key={p.projectKey} title={p.cwd ?? p.projectKey}>
            {p.name} ({p.sessions})
          </option>
        ))}
      </select>
    </label>
    {machines.length > 1 && (
      <OriginSelect
        label="Machine"
        all="All machines"
        values={machines}
        value={filter.machine}
        onChange={(machine) => onChange({ machine })}
      />
    )}
    {users.length > 1 && (
      <OriginSelect
        label="User"
        all="All users"
        values={users}
        value={filter.user}
        onChange={(user) => onChange({ user })}
      />
    )}
    {filter.projectId !== "" && (
      <span class="chip project-id">
        Project {filter.projectId}{" "}
        <button type="button" aria-label="Every project" onClick={() => onChange({ projectId: "" })}>×</button>
      </span>
    )}
    <label>
      Filter{" "}
      <input
        type="search"
        placeholder="title, prompt, id, branch…"
        value={filter.text}
        onInput={(e) => onChange({ text: e.currentTarget.value })}
      />
    </label>
  </div>
)

/** Below the rows: the next page, read when it scrolls into view (or at a click). */
const MoreRows = ({ list, loading, onMore }: {
  readonly list: SessionsResponse
  readonly loading: boolean
  readonly onMore: () => void
}) => {
  const sentinel = useRef<HTMLDivElement>(null)
  const left = list.matched - list.sessions.length
  useEffect(() => {
    const element = sentinel.current
    if (element === null || left <= 0) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) onMore()
    })
    observer.observe(element)
    return () => observer.disconnect()
  })
  if (left <= 0) return null
  return (
    <div class="more-rows" ref={sentinel}>
      <button type="button" disabled={loading} onClick={onMore}>
        {loading ? "Loading…" : `Show ${Math.min(PAGE_SIZE, left)} more of ${left}`}
      </button>
    </div>
  )
}

export const SessionsPage = ({ route }: { readonly route: Route }) => {
  const [filter, setFilter] = useState<SessionsFilter>({
    project: route.query.get("project") ?? "",
    // a project across machines (the costs page links to one gathering several path keys)
    projectId: route.query.get("projectId") ?? "",
    machine: route.query.get("machine") ?? "",
    user: route.query.get("user") ?? "",
    text: ""
  })
  const { error, list, loadMore, loadingMore, reconnecting, usage } = useSessions(filter)
  const onChange = (change: Partial<SessionsFilter>) => setFilter((current) => ({ ...current, ...change }))

  if (error !== undefined) return <p class="error" role="alert">{error}</p>
  if (list === undefined) return <p class="loading">Loading sessions…</p>
  return (
    <section class="page sessions">
      <h1>
        Sessions <span class="muted">{list.matched} of {list.total}</span>
      </h1>
      {reconnecting && (
        <p class="warning reconnecting" role="status">
          The store's server is away: reconnecting (the list is as it was).
        </p>
      )}
      <SearchPanel project={filter.project} />
      <SessionsToolbar
        list={list}
        filter={filter}
        machines={list.machines}
        users={list.users}
        onChange={onChange}
      />
      {list.sessions.length === 0
        ? <p class="muted">No sessions{list.total > 0 ? " match" : ` in ${list.configDir}`}.</p>
        : <SessionsTable list={list} rows={list.sessions} usage={usage} users={list.users.length} />}
      <MoreRows list={list} loading={loadingMore} onMore={loadMore} />
    </section>
  )
}
