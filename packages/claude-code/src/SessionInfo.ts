/**
 * A session as a listing shows it: the model `ClaudeProjects.listSessions`, the plain readers
 * (`PlainListing`) and the listing's rows (`ListingRows`) share, in a module of its own so that
 * none of them imports another for a type.
 *
 * @since 0.5.0
 */
import type * as SessionMetadata from "@acx/convert/SessionMetadata"

/**
 * A session as a listing shows it: where it is, and its metadata (`@acx/convert/SessionMetadata`:
 * title, first prompt as a listing shows it — a slash command as `/name args` —, last prompt,
 * cwd, branch, start and last times).
 *
 * @since 0.5.0
 * @category models
 */
export interface SessionInfo extends SessionMetadata.SessionMetadata {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  /** Epoch milliseconds. */
  readonly mtime: number
  /** Bytes. */
  readonly size: number
}
