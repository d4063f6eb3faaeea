// One observation on the memory page: its type, title, subtitle, narrative, facts and files,
// when it was written, the turn of the session it came from, and "Forget". Every string is
// rendered as text (memory is hostile input like a transcript).
import type { ObservationView } from "../../src/MemoryView.js"
import * as format from "../format.js"
import { href } from "../router.js"

/** The search's snippet with its `**` matches as <mark> (text nodes only, never markup). */
const Snippet = ({ text }: { readonly text: string }) => (
  <>
    {text.split("**").map((part, index) => index % 2 === 1 ? <mark key={index}>{part}</mark> : part)}
  </>
)

const Files = ({ files, label }: { readonly label: string; readonly files: ReadonlyArray<string> }) =>
  files.length === 0 ? null : (
    <p class="obs-files">
      <span class="muted">{label}:</span> {files.map((file, index) => (
        <>
          {index > 0 && ", "}
          <code key={file}>{file}</code>
        </>
      ))}
    </p>
  )

export const MemoryObservation = (
  { busy, observation, onForget, onSession }: {
    readonly observation: ObservationView
    readonly onForget: (id: string) => void
    readonly onSession: (sessionId: string) => void
    readonly busy: boolean
  }
) => {
  const o = observation
  return (
    <article class="obs" id={`obs-${o.id}`} aria-labelledby={`obs-title-${o.id}`}>
      <header class="obs-head">
        <span class={`obs-type type-${o.type.replace(/[^a-z]/gi, "")}`}>{o.type}</span>
        <h3 id={`obs-title-${o.id}`}>{o.title}</h3>
        {/* "O5" in a monospace font reads like "05": the page says what it is */}
        <span class="muted obs-id" title={`${o.id}: its id in the memory tools (get_observations)`}>
          {format.memoryEntry(o.id)}
        </span>
        <time class="muted" dateTime={new Date(o.createdAt).toISOString()}>{format.dateTime(o.createdAt)}</time>
      </header>
      {o.subtitle !== null && o.subtitle !== "" && <p class="obs-subtitle">{o.subtitle}</p>}
      {o.snippet !== null && (
        <p class="obs-snippet">
          <Snippet text={o.snippet} />
        </p>
      )}
      {o.narrative !== "" && <p class="obs-narrative">{o.narrative}</p>}
      {o.facts.length > 0 && (
        <ul class="obs-facts">
          {o.facts.map((fact, index) => <li key={index}>{fact}</li>)}
        </ul>
      )}
      <Files label="modified" files={o.filesModified} />
      <Files label="read" files={o.filesRead} />
      <footer class="obs-actions">
        {o.from === null
          ? <span class="muted">session not in this config directory</span>
          : (
            <a
              class="from-turn"
              href={href("session", o.from.sessionId, o.from.turn === null ? undefined : { turn: o.from.turn })}
              title={o.from.turn === null ? "the turn was not found: opens the session" : `turn ${o.from.turn}`}
            >
              From this turn <span class="muted">({o.from.kind}: {o.from.label})</span>
            </a>
          )}
        <button type="button" class="linkish" onClick={() => onSession(o.sessionId)}>
          Session summary
        </button>
        <button type="button" class="forget" disabled={busy} onClick={() => onForget(o.id)}>
          Forget
        </button>
      </footer>
    </article>
  )
}
