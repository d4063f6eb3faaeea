/**
 * The sessions as a table (what `acx sessions` and `acx demo` print), last active first; without
 * sizes (`-`) for a store, which keeps entries, not files; with a MACHINE column, and each project
 * named across machines, when the sessions come from more than one machine; and a store's listing
 * as `acx sessions --from` prints it ({@link storeListing}). Loads without Effect: the store reads
 * (`storeReads.ts`) print it too.
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import type * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as TerminalText from "@acx/convert/TerminalText"
import * as format from "./format.js"

export const sessionsTable = (
  sessions: ReadonlyArray<SessionListing.ListedSession>,
  options: { readonly sizes?: boolean } = {}
): string => [...sessionsTableChunks(sessions, options)].join("")

/** {@link sessionsTable} in pieces (`format.tableChunks`): joined, they are the table. */
export const sessionsTableChunks = (
  sessions: ReadonlyArray<SessionListing.ListedSession>,
  options: { readonly sizes?: boolean } = {}
): Iterable<string> => {
  // sessions of several machines (a hub): each row says which, and names its project as a team
  // does (its git remote, else its path) rather than by one machine's directory key
  const across = new Set(sessions.map((session) => session.machine ?? "")).size > 1
  return format.tableChunks(
    columnsOf(across),
    sessions.map((session) => cellsOf(session, across, options.sizes !== false))
  )
}

const columnsOf = (across: boolean): Array<format.Column> => [
  { title: "SESSION" },
  ...(across ? [{ title: "MACHINE" }] : []),
  { title: "PROJECT" },
  { title: "LAST ACTIVE" },
  { title: "SIZE", align: "right" as const },
  { title: "TITLE / FIRST PROMPT" }
]

const cellsOf = (session: SessionListing.ListedSession, across: boolean, sizes: boolean): Array<string> => {
  const project = format.clip(across ? session.project ?? session.projectKey : session.projectKey, 40)
  const active = format.date(ListingRows.lastActivity(session))
  const size = sizes ? format.bytes(session.size) : "-"
  const title = format.clip(SessionMetadata.displayTitle(session) ?? "", 60)
  return across
    ? [session.sessionId, format.clip(session.machine ?? "unknown", 24), project, active, size, title]
    : [session.sessionId, project, active, size, title]
}

// A config directory's table on a terminal, printed as its rows come: fixed widths (a session id,
// the 40 characters a project is clipped to, a date, a size up to `1023.9 KB`), one machine.
const TERMINAL_WIDTHS = [36, 40, 16, 9, 0]

/** The heading of {@link terminalRows}' table. */
export const terminalHeading = (): string =>
  format.tableLine(columnsOf(false), TERMINAL_WIDTHS, columnsOf(false).map((column) => column.title))

/**
 * A config directory's sessions as lines of the table a terminal gets (`acx sessions` on a TTY),
 * with fixed column widths, so that rows printed as they come line up: the cells of
 * {@link sessionsTable}, made printable.
 */
export const terminalRows = (sessions: ReadonlyArray<SessionListing.ListedSession>): string =>
  sessions.map((session) =>
    format.tableLine(columnsOf(false), TERMINAL_WIDTHS, cellsOf(session, false, true).map(TerminalText.line))
  ).join("\n")

/**
 * What `acx sessions --from STORE` prints (without the final newline): the JSON list, else
 * `no sessions <place>` for an empty one, else the table without sizes (a store keeps entries,
 * not files). `place` is where the listing looked (`listingWords.ts` `listingPlace`).
 */
export const storeListing = (
  sessions: ReadonlyArray<SessionListing.ListedSession>,
  options: { readonly json: boolean; readonly place: string }
): string => [...storeListingChunks(sessions, options)].join("")

/** {@link storeListing} in pieces (joined, they are its text), to write as they are rendered. */
export const storeListingChunks = (
  sessions: ReadonlyArray<SessionListing.ListedSession>,
  options: { readonly json: boolean; readonly place: string }
): Iterable<string> =>
  options.json
    ? format.jsonChunks(sessions)
    : sessions.length === 0
    ? [`no sessions ${options.place}`]
    : sessionsTableChunks(sessions, { sizes: false })
