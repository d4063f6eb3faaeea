/**
 * How `StoreProjects` names a store's transcripts and lists its sessions, without Effect: a
 * catalog's `StoredSession` as the `ClaudeProjects.SessionInfo` a config directory's listing
 * gives. `StoreProjects` lists through these functions, and so does a reader that starts without
 * Effect (the CLI's fast read path), so both print the same rows. Pure.
 *
 * @since 0.3.0
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import type * as ClaudeProjects from "./ClaudeProjects.js"
import * as ListingRows from "./ListingRows.js"

/**
 * Where a stored transcript is, as a user reads it: `<location>#<projectKey>/<sessionId>[/<subpath>]`.
 *
 * @since 0.3.0
 * @category layout
 */
export const locationOf = (location: string, key: SessionStore.SessionKey): string =>
  `${location}#${key.projectKey}/${key.sessionId}${key.subpath === undefined ? "" : `/${key.subpath}`}`

/**
 * A catalog's session as a listing's: its metadata, `file` its location in the store, `size` 0
 * (a store keeps entries, not files), `mtime` the store clock's last append; the catalog's counts
 * left out.
 *
 * @since 0.3.0
 * @category listing
 */
export const sessionInfoOf = (location: string, stored: StoreCatalog.StoredSession): ClaudeProjects.SessionInfo => {
  const {
    assistantMessages: _a,
    entries: _e,
    lastActivityMs: _l,
    subagents: _s,
    toolCalls: _t,
    userMessages: _u,
    ...rest
  } = stored
  return { ...rest, file: locationOf(location, stored), size: 0 }
}

/**
 * A row of `StoreCatalogSql.listingRows` as the listing's row ({@link sessionInfoOf}'s session
 * through `ListingRows.row`, in one step: no stored session or session info built on the way),
 * with its recorded origin when the store has one. Unordered: `ListingRows.ordered` sorts.
 *
 * @since 0.6.0
 * @category listing
 */
export const listedOf = (location: string, row: StoreCatalogSql.ListingRow): ListingRows.ListedSession => {
  const [projectKey, sessionId, state, mtime, project, machine] = row
  return ListingRows.row(
    { projectKey, sessionId, file: locationOf(location, { projectKey, sessionId }), mtime: Number(mtime), size: 0 },
    SessionMetadata.metadataOf(StoreCatalogSql.stateOf(state)),
    project === null || machine === null ? undefined : { project, machine }
  )
}
