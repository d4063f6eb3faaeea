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
  // the stored session's fields in its order but the counts, then the file's (a store lists thousands)
  const info: { -readonly [K in keyof ClaudeProjects.SessionInfo]?: ClaudeProjects.SessionInfo[K] } = {
    projectKey: stored.projectKey,
    sessionId: stored.sessionId,
    mtime: stored.mtime
  }
  if (stored.title !== undefined) info.title = stored.title
  if (stored.firstPrompt !== undefined) info.firstPrompt = stored.firstPrompt
  if (stored.lastPrompt !== undefined) info.lastPrompt = stored.lastPrompt
  if (stored.cwd !== undefined) info.cwd = stored.cwd
  if (stored.gitBranch !== undefined) info.gitBranch = stored.gitBranch
  if (stored.startTime !== undefined) info.startTime = stored.startTime
  if (stored.lastTime !== undefined) info.lastTime = stored.lastTime
  info.file = locationOf(location, stored)
  info.size = 0
  return info as ClaudeProjects.SessionInfo
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
