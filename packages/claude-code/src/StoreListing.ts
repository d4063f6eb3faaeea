/**
 * How `StoreProjects` names a store's transcripts and lists its sessions, without Effect: a
 * catalog's `StoredSession` as the `ClaudeProjects.SessionInfo` a config directory's listing
 * gives. `StoreProjects` lists through these functions, and so does a reader that starts without
 * Effect (the CLI's fast read path), so both print the same rows. Pure.
 *
 * @since 0.3.0
 */
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import type * as ClaudeProjects from "./ClaudeProjects.js"

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
