// Memory: what the memory kept, by project, newest first or found by words (FTS); each
// observation links to the turn of the session it came from; a session's summary; the context
// the next SessionStart would inject; forgetting one observation or all matching the filter,
// each with an undo; the observer's own spend against its budget; new observations arrive live
// (server-sent events). Without a memory database, a message saying how to turn it on.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks"
import type {
  CurationResponse,
  MemoryOverview,
  ObservationsResponse,
  ObservationView,
  SessionMemoryResponse,
  SpendResponse
} from "../../src/MemoryView.js"
import { getJson, postJson } from "../api.js"
import { MemoryObservation } from "../components/MemoryObservation.js"
import { MemorySpend } from "../components/MemorySpend.js"
import * as format from "../format.js"
import { href, type Route } from "../router.js"

const TYPES = ["bugfix", "feature", "refactor", "change", "discovery", "decision"]
const PAGE = 50

interface Filter {
  readonly project: string
  readonly q: string
  readonly type: string
}

/** What the last curation did, for the feedback line and its undo. */
interface Done {
  readonly ids: ReadonlyArray<string>
  readonly undone: boolean
}

/** The entries a curation changed: "observation #2" for one, "3 observations" for more. */
const entries = (ids: ReadonlyArray<string>): string =>
  ids.length === 1 ? format.memoryEntry(ids[0]!) : `${ids.length} observations`

const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") search.set(key, String(value))
  }
  return search.toString()
}

const matchesFilter = (o: ObservationView, filter: Filter): boolean =>
  filter.q === "" && (filter.project === "" || o.project === filter.project) &&
  (filter.type === "" || o.type === filter.type)

const ContextPanel = ({ mask, project, version }: {
  readonly project: string
  readonly mask: boolean
  readonly version: number
}) => {
  const [context, setContext] = useState<{ text: string; tokens: number; budget: number } | undefined>()
  const [error, setError] = useState<string | undefined>()
  useEffect(() => {
    const abort = new AbortController()
    setContext(undefined)
    fetch(`/api/memory/context?${query({ project, mask: mask ? undefined : 0 })}`, {
      credentials: "same-origin",
      signal: abort.signal
    }).then(async (response) => {
      const text = await response.text()
      if (!response.ok) throw new Error(text)
      setContext({
        text,
        tokens: Number(response.headers.get("x-acx-context-tokens") ?? 0),
        budget: Number(response.headers.get("x-acx-context-budget") ?? 0)
      })
    }).catch((e: Error) => {
      if (!abort.signal.aborted) setError(e.message)
    })
    return () => abort.abort()
  }, [project, mask, version])
  if (error !== undefined) return <p class="error" role="alert">{error}</p>
  if (context === undefined) return <p class="loading">Loading the context…</p>
  return (
    <>
      <p class="muted">
        What the next session in <code>{project}</code> starts with: ≈{" "}
        <span class="context-tokens">{format.count(context.tokens)}</span> tokens of the{" "}
        {format.count(context.budget)}-token budget (<code>acx memory context --project {project}</code>{" "}
        prints the same).
      </p>
      <pre class="memory-context" tabIndex={0}>{context.text}</pre>
    </>
  )
}

const SessionPanel = ({ mask, onClose, sessionId }: {
  readonly sessionId: string
  readonly mask: boolean
  readonly onClose: () => void
}) => {
  const [body, setBody] = useState<SessionMemoryResponse | undefined>()
  const [error, setError] = useState<string | undefined>()
  useEffect(() => {
    const abort = new AbortController()
    setBody(undefined)
    setError(undefined)
    getJson<SessionMemoryResponse>(
      `/api/memory/session/${encodeURIComponent(sessionId)}?${query({ mask: mask ? undefined : 0 })}`,
      abort.signal
    ).then(setBody, (e: Error) => {
      if (!abort.signal.aborted) setError(e.message)
    })
    return () => abort.abort()
  }, [sessionId, mask])
  return (
    <section class="memory-session" aria-labelledby="memory-session-title">
      <h2 id="memory-session-title">
        Session <code>{sessionId.slice(0, 8)}</code> <a href={href("session", sessionId)}>open the session</a>{" "}
        <button type="button" onClick={onClose}>Close</button>
      </h2>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
      {body === undefined && error === undefined && <p class="loading">Loading…</p>}
      {body !== undefined && (
        <>
          <p class="muted">
            {body.project ?? ""} · {body.status ?? "unknown status"} · {body.observations.length} observations
          </p>
          {body.summaries.length === 0 && <p class="muted">No summary yet (written when the session stops).</p>}
          {body.summaries.map((s) => (
            <dl class="memory-summary" key={s.id}>
              <dt>Request</dt>
              <dd>{s.request}</dd>
              <dt>Investigated</dt>
              <dd>{s.investigated}</dd>
              <dt>Learned</dt>
              <dd>{s.learned}</dd>
              <dt>Completed</dt>
              <dd>{s.completed}</dd>
              <dt>Next steps</dt>
              <dd>{s.nextSteps}</dd>
              {s.notes !== "" && (
                <>
                  <dt>Notes</dt>
                  <dd>{s.notes}</dd>
                </>
              )}
              {s.filesRead.length + s.filesEdited.length > 0 && (
                <>
                  <dt>Files</dt>
                  <dd>
                    {[...s.filesEdited.map((f) => `${f} (edited)`), ...s.filesRead].map((f) => (
                      <code key={f} class="file">{f}</code>
                    ))}
                  </dd>
                </>
              )}
              <dt>Written</dt>
              <dd>{format.dateTime(s.createdAt)} · {s.id}</dd>
            </dl>
          ))}
        </>
      )}
    </section>
  )
}

type SetError = (error: string | undefined) => void

const observationsUrl = (filter: Filter, mask: boolean, before?: number): string =>
  `/api/memory/observations?${
    query({
      project: filter.project,
      q: before === undefined ? filter.q : undefined,
      type: filter.type,
      limit: PAGE,
      before,
      mask: mask ? undefined : 0
    })
  }`

/**
 * The timeline (or the search's results) for the filter, a page at a time, with the observations
 * that arrive live (server-sent events) put in front when they match it.
 */
const useObservations = (
  { exists, filter, mask, onError, onLive, version }: {
    readonly exists: boolean
    readonly filter: Filter
    readonly mask: boolean
    readonly version: number
    readonly onError: SetError
    readonly onLive: () => void
  }
) => {
  const [list, setList] = useState<ReadonlyArray<ObservationView> | undefined>()
  const [next, setNext] = useState<number | null>(null)
  const [live, setLive] = useState(false)
  // observations that arrived live: the context may have changed
  const [fresh, setFresh] = useState(0)

  useEffect(() => {
    if (!exists) return
    const abort = new AbortController()
    onError(undefined)
    getJson<ObservationsResponse>(observationsUrl(filter, mask), abort.signal).then((body) => {
      setList(body.observations)
      setNext(body.next)
    }, (e: Error) => {
      if (!abort.signal.aborted) onError(e.message)
    })
    return () => abort.abort()
  }, [exists, filter, mask, version])

  // new observations as the worker writes them
  const filterRef = useRef(filter)
  filterRef.current = filter
  useEffect(() => {
    if (!exists) return
    const source = new EventSource(`/api/memory/events?${query({ mask: mask ? undefined : 0 })}`)
    source.onopen = () => setLive(true)
    source.onerror = () => setLive(false)
    source.addEventListener("observation", (event) => {
      const o = JSON.parse((event as MessageEvent<string>).data) as ObservationView
      if (matchesFilter(o, filterRef.current)) {
        setList((current) => current === undefined || current.some((c) => c.id === o.id) ? current : [o, ...current])
      }
      onLive()
      setFresh((n) => n + 1)
    })
    return () => source.close()
  }, [exists, mask])

  const more = () => {
    if (next === null) return
    getJson<ObservationsResponse>(observationsUrl(filter, mask, next)).then((body) => {
      setList((current) => [...(current ?? []), ...body.observations])
      setNext(body.next)
    }, (e: Error) => onError(e.message))
  }
  return { list, next, live, fresh, more }
}

/** Forgetting one observation or all matching the filter, and the undo of the last one. */
const useCuration = ({ filter, onChanged, onError }: {
  readonly filter: Filter
  readonly onChanged: () => void
  readonly onError: SetError
}) => {
  const [done, setDone] = useState<Done | undefined>()
  const [busy, setBusy] = useState(false)
  const [version, setVersion] = useState(0)
  const curate = async (action: () => Promise<CurationResponse>, undone: boolean) => {
    setBusy(true)
    try {
      const answer = await action()
      setDone({ ids: answer.forgotten ?? answer.restored ?? [], undone })
      setVersion((v) => v + 1)
      onChanged()
    } catch (e) {
      onError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  const forgetOne = (id: string) => curate(() => postJson<CurationResponse>("/api/memory/forget", { ids: [id] }), false)
  const forgetMatching = () => {
    const what = [
      filter.q !== "" ? `matching “${filter.q}”` : undefined,
      filter.type !== "" ? `of type ${filter.type}` : undefined,
      filter.project !== "" ? `in ${filter.project}` : undefined
    ].filter((part) => part !== undefined).join(" ")
    if (!confirm(`Forget every observation ${what}? Undo brings them back.`)) return
    void curate(() =>
      postJson<CurationResponse>("/api/memory/forget", {
        filter: {
          ...(filter.project === "" ? {} : { project: filter.project }),
          ...(filter.q === "" ? {} : { query: filter.q }),
          ...(filter.type === "" ? {} : { type: filter.type })
        }
      }), false)
  }
  const undo = () => {
    if (done === undefined || done.ids.length === 0) return
    void curate(() => postJson<CurationResponse>("/api/memory/restore", { ids: done.ids }), true)
  }
  return { done, busy, version, forgetOne, forgetMatching, undo }
}

const MemoryAbsent = ({ overview }: { readonly overview: { readonly database: string; readonly enable: string } }) => (
  <section class="page memory">
    <h1>Memory</h1>
    <div class="memory-absent" role="status">
      <p>
        <strong>The memory is not turned on:</strong> there is no memory database at <code>{overview.database}</code>.
      </p>
      <p>
        Turn it on with{" "}
        <code>{overview.enable}</code>: Claude Code's hooks then record what each session does, and the next session
        starts with what earlier ones learned. This page only reads the memory; it never creates it.
      </p>
    </div>
  </section>
)

/** The filter's form: project, type, words, secrets shown, and "Forget all matching". */
const MemoryToolbar = ({ busy, filter, mask, onForgetMatching, projects, setFilter, setMask }: {
  readonly filter: Filter
  readonly setFilter: (filter: Filter) => void
  readonly mask: boolean
  readonly setMask: (mask: boolean) => void
  readonly projects: ReadonlyArray<{ readonly project: string; readonly observations: number }>
  readonly busy: boolean
  readonly onForgetMatching: () => void
}) => {
  const [typed, setTyped] = useState(filter.q)
  const filtered = filter.project !== "" || filter.q !== "" || filter.type !== ""
  return (
    <form
      class="toolbar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault()
        setFilter({ ...filter, q: typed.trim() })
      }}
    >
      <label>
        Project{" "}
        <select
          value={filter.project}
          onChange={(e) => setFilter({ ...filter, project: e.currentTarget.value })}
        >
          <option value="">All projects ({projects.length})</option>
          {projects.map((p) => (
            <option value={p.project} key={p.project}>
              {p.project} ({p.observations})
            </option>
          ))}
        </select>
      </label>
      <label>
        Type{" "}
        <select value={filter.type} onChange={(e) => setFilter({ ...filter, type: e.currentTarget.value })}>
          <option value="">Any</option>
          {TYPES.map((type) => <option value={type} key={type}>{type}</option>)}
        </select>
      </label>
      <label>
        Search{" "}
        <input
          type="search"
          name="q"
          placeholder="words (full-text)"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Search</button>
      <label>
        <input type="checkbox" checked={!mask} onChange={(e) => setMask(!e.currentTarget.checked)} /> Show secrets
      </label>
      {filtered && (
        <button type="button" class="forget" disabled={busy} onClick={onForgetMatching}>
          Forget all matching
        </button>
      )}
    </form>
  )
}

/** What the last curation did, with its undo. */
const CurationStatus = ({ busy, done, onUndo }: {
  readonly done: Done | undefined
  readonly busy: boolean
  readonly onUndo: () => void
}) => (
  <div class="curation" role="status" aria-live="polite">
    {done !== undefined && (
      done.ids.length === 0
        ? <span>Nothing changed.</span>
        : done.undone
        ? <span>Restored {entries(done.ids)}.</span>
        : (
          <span>
            Forgot {entries(done.ids)}.{" "}
            <button type="button" class="undo" disabled={busy} onClick={onUndo}>Undo</button>
          </span>
        )
    )}
  </div>
)

/** The observations found, newest first (or best first for words), and the pager. */
const Timeline = ({ busy, filter, list, more, next, onForget, onSession }: {
  readonly filter: Filter
  readonly list: ReadonlyArray<ObservationView> | undefined
  readonly next: number | null
  readonly busy: boolean
  readonly onForget: (id: string) => void
  readonly onSession: (sessionId: string) => void
  readonly more: () => void
}) => (
  <div class="memory-timeline">
    <h2>{filter.q !== "" ? `Best matches for “${filter.q}”` : "Timeline"}</h2>
    {list === undefined && <p class="loading">Loading observations…</p>}
    {list !== undefined && list.length === 0 && <p class="muted">No observation here.</p>}
    {list?.map((o) => (
      <MemoryObservation key={o.id} observation={o} busy={busy} onForget={onForget} onSession={onSession} />
    ))}
    {next !== null && filter.q === "" && (
      <div class="pager">
        <button type="button" onClick={more}>Older observations</button>
      </div>
    )}
  </div>
)

export const MemoryPage = ({ route }: { readonly route: Route }) => {
  const [overview, setOverview] = useState<MemoryOverview | undefined>()
  const [error, setError] = useState<string | undefined>()
  const [filter, setFilter] = useState<Filter>({
    project: route.query.get("project") ?? "",
    q: route.query.get("q") ?? "",
    type: route.query.get("type") ?? ""
  })
  const [mask, setMask] = useState(true)
  const [listError, setListError] = useState<string | undefined>()
  const [session, setSession] = useState<string | undefined>(route.query.get("session") ?? undefined)
  const [spend, setSpend] = useState<SpendResponse | undefined>()

  const refreshOverview = useCallback(
    () => getJson<MemoryOverview>("/api/memory").then(setOverview, (e: Error) => setError(e.message)),
    []
  )
  useEffect(() => {
    void refreshOverview()
  }, [])
  const exists = overview?.exists === true
  const onChanged = () => void refreshOverview()
  const curation = useCuration({ filter, onChanged, onError: setListError })
  const { fresh, list, live, more, next } = useObservations({
    exists,
    filter,
    mask,
    version: curation.version,
    onError: setListError,
    onLive: onChanged
  })

  useEffect(() => {
    if (!exists) return
    getJson<SpendResponse>("/api/memory/spend").then(setSpend, () => setSpend(undefined))
  }, [exists])

  const projects = useMemo(() => overview?.exists === true ? overview.projects : [], [overview])

  if (error !== undefined) return <p class="error" role="alert">{error}</p>
  if (overview === undefined) return <p class="loading">Loading the memory…</p>
  if (!overview.exists) return <MemoryAbsent overview={overview} />

  return (
    <section class="page memory">
      <h1>
        Memory{" "}
        <span class="muted">
          {overview.counts.observations} observations, {overview.counts.summaries} summaries
          {overview.forgotten.observations > 0 && `, ${overview.forgotten.observations} forgotten`}
        </span>
      </h1>
      <p class="muted memory-status">
        Worker {overview.worker.running ? `running (pid ${overview.worker.pid})` : "not running"} ·{" "}
        {overview.queue.pending} events waiting{overview.queue.failed > 0 && `, ${overview.queue.failed} failed`} ·{" "}
        observer: {overview.worker.observer} ·{" "}
        <span class={live ? "live on" : "live"}>{live ? "live" : "not live"}</span>
      </p>
      <MemoryToolbar
        filter={filter}
        setFilter={setFilter}
        mask={mask}
        setMask={setMask}
        projects={projects}
        busy={curation.busy}
        onForgetMatching={curation.forgetMatching}
      />
      <CurationStatus done={curation.done} busy={curation.busy} onUndo={curation.undo} />
      {listError !== undefined && <p class="error" role="alert">{listError}</p>}
      <div class="memory-grid">
        <Timeline
          filter={filter}
          list={list}
          next={next}
          busy={curation.busy}
          onForget={(id) => void curation.forgetOne(id)}
          onSession={setSession}
          more={more}
        />
        <aside class="memory-side">
          {session !== undefined && (
            <SessionPanel
              sessionId={session}
              mask={mask}
              onClose={() => setSession(undefined)}
            />
          )}
          <h2>Context of the next session</h2>
          {filter.project === ""
            ? <p class="muted">Choose a project to see the context its next session starts with.</p>
            : <ContextPanel project={filter.project} mask={mask} version={curation.version + fresh} />}
          <h2>The memory's own spend</h2>
          <p class="muted">
            The observer model's tokens and cost, apart from your sessions' (see <a href={href("costs")}>Costs</a>).
          </p>
          {spend === undefined ? <p class="loading">Loading…</p> : <MemorySpend spend={spend} />}
        </aside>
      </div>
    </section>
  )
}
