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
    [
      { title: "SESSION" },
      ...(across ? [{ title: "MACHINE" }] : []),
      { title: "PROJECT" },
      { title: "LAST ACTIVE" },
      { title: "SIZE", align: "right" as const },
      { title: "TITLE / FIRST PROMPT" }
    ],
    sessions.map((session) => {
      const project = format.clip(across ? session.project ?? session.projectKey : session.projectKey, 40)
      const active = format.date(ListingRows.lastActivity(session))
      const size = options.sizes === false ? "-" : format.bytes(session.size)
      const title = format.clip(SessionMetadata.displayTitle(session) ?? "", 60)
      return across
        ? [session.sessionId, format.clip(session.machine ?? "unknown", 24), project, active, size, title]
        : [session.sessionId, project, active, size, title]
    })
  )
}

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
