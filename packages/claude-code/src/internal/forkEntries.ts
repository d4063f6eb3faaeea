/**
 * A fork's entries and the words for a fork that found nothing: one rule for the config
 * directory's `forkSession` and the store's (`StoreProjects`).
 *
 * @internal
 */
import * as Fork from "@acx/convert/Fork"
import type * as Transcript from "@acx/schema/Transcript"
import { randomUUID } from "node:crypto"

/** A fork's entries (`@acx/convert/Fork`, fresh uuids, now's time); empty when there is nothing to fork. */
export const forkEntries = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  sourceSessionId: string,
  newSessionId: string,
  options: { readonly upToUuid?: string | undefined; readonly title?: string | undefined }
): Array<unknown> =>
  Fork.forkTranscript(entries, {
    newSessionId,
    sourceSessionId,
    now: new Date().toISOString(),
    uuid: randomUUID,
    ...(options.upToUuid !== undefined ? { upToUuid: options.upToUuid } : {}),
    ...(options.title !== undefined ? { title: options.title } : {})
  })

/** Why a fork found nothing: the session has no conversation entry, or `upToUuid` is not one. */
export const nothingToFork = (sessionId: string, options: { readonly upToUuid?: string | undefined }): string =>
  options.upToUuid === undefined
    ? `session ${sessionId} has no conversation entry to fork`
    : `no main conversation entry ${JSON.stringify(options.upToUuid)} in session ${sessionId}`
