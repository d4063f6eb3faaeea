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

export const SessionsPage = ({ route }: { readonly route: Route }) => {
  const [list, setList] = useState<SessionsResponse | undefined>()
  const [usage, setUsage] = useState<ReadonlyMap<string, SessionUsage> | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [project, setProject] = useState(route.query.get("project") ?? "")
  // a project across machines (the costs page links to one gathering several path keys), a machine, a user
  const [projectId, setProjectId] = useState(route.query.get("projectId") ?? "")
  const [machine, setMachine] = useState(route.query.get("machine") ?? "")
  const [user, setUser] = useState(route.query.get("user") ?? "")
  const [text, setText] = useState("")
  const [page, setPage] = useState(0)

  const [version, setVersion] = useState(0)
  const [reconnecting, setReconnecting] = useState(false)

  // the list is read again when the server says it changed (a store appended to); while the
  // store's server is away (a Postgres restart), the page says the list is not live
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

  const shown = useMemo(() => {
    if (list === undefined) return []
    const words = text.toLowerCase().split(/\s+/).filter((word) => word !== "")
    return list.sessions.filter((row) => {
      const origin = originOf(list, row)
      return (project === "" || row.projectKey === project) && (projectId === "" || origin.project === projectId) &&
        (machine === "" || origin.machine === machine) && (user === "" || origin.user === user) &&
        matches(row, words)
    })
  }, [list, project, projectId, machine, user, text])
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE))
  const current = Math.min(page, pages - 1)

  if (error !== undefined) return <p class="error" role="alert">{error}</p>
  if (list === undefined) return <p class="loading">Loading sessions…</p>
  const names = new Map(list.projects.map((p) => [p.projectKey, p.name]))
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
      <SearchPanel project={project} />
      <div class="toolbar">
        <label>
          Project{" "}
          <select
            value={project}
            onChange={(e) => {
              setProject(e.currentTarget.value)
              setPage(0)
            }}
          >
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
            value={machine}
            onChange={(next) => {
              setMachine(next)
              setPage(0)
            }}
          />
        )}
        {users.length > 1 && (
          <OriginSelect
            label="User"
            all="All users"
            values={users}
            value={user}
            onChange={(next) => {
              setUser(next)
              setPage(0)
            }}
          />
        )}
        {projectId !== "" && (
          <span class="chip project-id">
            Project {projectId}{" "}
            <button type="button" aria-label="Every project" onClick={() => setProjectId("")}>×</button>
          </span>
        )}
        <label>
          Filter{" "}
          <input
            type="search"
            placeholder="title, prompt, id, branch…"
            value={text}
            onInput={(e) => {
              setText(e.currentTarget.value)
              setPage(0)
            }}
          />
        </label>
      </div>
      {shown.length === 0
        ? <p class="muted">No sessions{list.sessions.length > 0 ? " match" : ` in ${list.configDir}`}.</p>
        : (
          <div class="table-wrap">
            <table class="sessions-table">
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col" class="col-project">Project</th>
                  <th scope="col" class="machine">Machine</th>
                  {users.length > 1 && <th scope="col" class="user">User</th>}
                  <th scope="col" class="col-started">Started</th>
                  <th scope="col">Last activity</th>
                  <th scope="col" class="num col-messages">Messages</th>
                  <th scope="col" class="num">Tokens</th>
                  <th scope="col" class="num">Cost</th>
                </tr>
              </thead>
              <tbody>
                {shown.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE).map((row) => {
                  const used = usage?.get(row.sessionId)
                  return (
                    <tr key={row.sessionId} class={used?.outlier === true ? "outlier" : undefined}>
                      <td class="title-cell">
                        <a href={href("session", row.sessionId)}>{row.title ?? row.firstPrompt ?? row.sessionId}</a>
                        {row.title !== undefined && row.firstPrompt !== undefined && (
                          <div class="muted clip">{row.firstPrompt}</div>
                        )}
                        <div class="muted mono">
                          {row.sessionId.slice(0, 8)}
                          {row.gitBranch !== undefined && ` · ${row.gitBranch}`}
                        </div>
                      </td>
                      <td class="col-project" title={originOf(list, row).project}>
                        {names.get(row.projectKey) ?? row.projectKey}
                      </td>
                      <td class="machine">{originOf(list, row).machine}</td>
                      {users.length > 1 && <td class="user">{originOf(list, row).user}</td>}
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
                })}
              </tbody>
            </table>
          </div>
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
