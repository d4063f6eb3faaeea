/**
 * The sessions as a table (what `acx sessions` and `acx demo` print), last active first; without
 * sizes (`-`) for a store, which keeps entries, not files; with a MACHINE column, and each project
 * named across machines, when the sessions come from more than one machine. Loads without Effect: the fast read
 * path (`fastRead.ts`) prints it too.
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import type * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as format from "./format.js"

export const sessionsTable = (
  sessions: ReadonlyArray<SessionListing.ListedSession>,
  options: { readonly sizes?: boolean } = {}
): string => {
  // sessions of several machines (a hub): each row says which, and names its project as a team
  // does (its git remote, else its path) rather than by one machine's directory key
  const across = new Set(sessions.map((session) => session.machine ?? "")).size > 1
  return format.table(
    [
      { title: "SESSION" },
      ...(across ? [{ title: "MACHINE" }] : []),
      { title: "PROJECT" },
      { title: "LAST ACTIVE" },
      { title: "SIZE", align: "right" as const },
      { title: "TITLE / FIRST PROMPT" }
    ],
    sessions.map((session) => [
      session.sessionId,
      ...(across ? [format.clip(session.machine ?? "unknown", 24)] : []),
      format.clip(across ? session.project ?? session.projectKey : session.projectKey, 40),
      format.date(ListingRows.lastActivity(session)),
      options.sizes === false ? "-" : format.bytes(session.size),
      format.clip(SessionMetadata.displayTitle(session) ?? "", 60)
    ])
  )
}
