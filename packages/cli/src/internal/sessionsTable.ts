/**
 * The sessions as a table (what `acx sessions` and `acx demo` print), last active first; without
 * sizes (`-`) for a store, which keeps entries, not files. Loads without Effect: the fast read
 * path (`fastRead.ts`) prints it too.
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import type * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as format from "./format.js"

export const sessionsTable = (
  sessions: ReadonlyArray<SessionListing.ListedSession>,
  options: { readonly sizes?: boolean } = {}
): string =>
  format.table(
    [
      { title: "SESSION" },
      { title: "PROJECT" },
      { title: "LAST ACTIVE" },
      { title: "SIZE", align: "right" },
      { title: "TITLE / FIRST PROMPT" }
    ],
    sessions.map((session) => [
      session.sessionId,
      format.clip(session.projectKey, 40),
      format.date(ListingRows.lastActivity(session)),
      options.sizes === false ? "-" : format.bytes(session.size),
      format.clip(SessionMetadata.displayTitle(session) ?? "", 60)
    ])
  )
