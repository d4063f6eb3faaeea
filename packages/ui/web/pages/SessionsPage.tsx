// Sessions: every project's sessions, newest first, with the machine each came from (and its user
// when there are several), filters by project, machine, user and text, and pages of 100 rows; usage (messages, tokens, cost) fills in when its folds are read, and a
// session that cost far more than its project's usual is flagged. Above them, search inside
// every conversation (SearchPanel). Over a store the list follows it: /api/sessions/events says
// when it changed, and the list (then its usage) is read again.
import { useEffect, useMemo, useState } from "preact/hooks"
import type { SessionRow, SessionsEvent, SessionsResponse, SessionUsage, UsageResponse } from "../../src/UiApi.js"
import { getJson } from "../api.js"
import { SearchPanel } from "../components/SearchPanel.js"
import * as format from "../format.js"
import { href, type Route } from "../router.js"

const PAGE_SIZE = 100

const matches = (row: SessionRow, words: ReadonlyArray<string>): boolean => {
  if (words.length === 0) return true
  const text = [row.sessionId, row.title, row.firstPrompt, row.cwd, row.gitBranch].join("\n").toLowerCase()
  return words.every((word) => text.includes(word))
}

// where a session came from; a store's session without a recorded origin is unknown
const originOf = (list: SessionsResponse, row: SessionRow) =>
  list.origins[`${row.projectKey}/${row.sessionId}`] ??
    { machine: "unknown", user: "unknown", project: row.projectKey }

const distinct = (list: SessionsResponse, pick: (origin: ReturnType<typeof originOf>) => string) =>
  [...new Set(list.sessions.map((row) => pick(originOf(list, row))))].sort()

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

/**
 * The sessions and their usage, read again when the server says the list changed (a store
 * appended to); `reconnecting` while the store's server is away (a Postgres restart).
 */
const useSessions = () => {
  const [list, setList] = useState<SessionsResponse | undefined>()
  const [usage, setUsage] = useState<ReadonlyMap<string, SessionUsage> | undefined>()
  const [error, setError] = useState<string | undefined>()
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

  useEffect(() => {
    const abort = new AbortController()
    // the list first: usage folds every transcript, and the list must not wait behind it
    getJson<SessionsResponse>("/api/sessions", abort.signal).then((body) => {
      setList(body)
      return getJson<UsageResponse>("/api/sessions/usage", abort.signal).then(
        (usage) => setUsage(new Map(usage.sessions.map((row) => [row.sessionId, row]))),
        () => {
          if (!abort.signal.aborted) setUsage(new Map())
        }
      )
    }, (e: Error) => {
      if (!abort.signal.aborted) setError(e.message)
    })
    return () => abort.abort()
  }, [version])
  return { list, usage, error, reconnecting }
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

/** The list's filters; a project across machines, a machine, a user, and words. */
interface SessionsFilter {
  readonly project: string
  readonly projectId: string
  readonly machine: string
  readonly user: string
  readonly text: string
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

const filterRows = (list: SessionsResponse | undefined, filter: SessionsFilter): Array<SessionRow> => {
  if (list === undefined) return []
  const { machine, project, projectId, user } = filter
  const words = filter.text.toLowerCase().split(/\s+/).filter((word) => word !== "")
  return list.sessions.filter((row) => {
    const origin = originOf(list, row)
    return (project === "" || row.projectKey === project) && (projectId === "" || origin.project === projectId) &&
      (machine === "" || origin.machine === machine) && (user === "" || origin.user === user) &&
      matches(row, words)
  })
}

export const SessionsPage = ({ route }: { readonly route: Route }) => {
  const { error, list, reconnecting, usage } = useSessions()
  const [filter, setFilter] = useState<SessionsFilter>({
    project: route.query.get("project") ?? "",
    // a project across machines (the costs page links to one gathering several path keys)
    projectId: route.query.get("projectId") ?? "",
    machine: route.query.get("machine") ?? "",
    user: route.query.get("user") ?? "",
    text: ""
  })
  const [page, setPage] = useState(0)
  const onChange = (change: Partial<SessionsFilter>) => {
    setFilter((current) => ({ ...current, ...change }))
    // clearing the project id keeps the page, as before; every other filter goes back to the first
    if (change.projectId === undefined) setPage(0)
  }

  const shown = useMemo(() => filterRows(list, filter), [list, filter])
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE))
  const current = Math.min(page, pages - 1)

  if (error !== undefined) return <p class="error" role="alert">{error}</p>
  if (list === undefined) return <p class="loading">Loading sessions…</p>
  const machines = distinct(list, (origin) => origin.machine)
  const users = distinct(list, (origin) => origin.user)
  return (
    <section class="page sessions">
      <h1>
        Sessions <span class="muted">{shown.length} of {list.sessions.length}</span>
      </h1>
      {reconnecting && (
        <p class="warning reconnecting" role="status">
          The store's server is away: reconnecting (the list is as it was).
        </p>
      )}
      <SearchPanel project={filter.project} />
      <SessionsToolbar list={list} filter={filter} machines={machines} users={users} onChange={onChange} />
      {shown.length === 0
        ? <p class="muted">No sessions{list.sessions.length > 0 ? " match" : ` in ${list.configDir}`}.</p>
        : (
          <SessionsTable
            list={list}
            rows={shown.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE)}
            usage={usage}
            users={users.length}
          />
        )}
      {pages > 1 && (
        <nav class="pager" aria-label="Pages of sessions">
          <button disabled={current === 0} onClick={() => setPage(current - 1)}>Previous</button>
          <span>Page {current + 1} of {pages}</span>
          <button disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>Next</button>
        </nav>
      )}
    </section>
  )
}
