/**
 * What `acx sessions` does (its options: `../sessions.ts`).
 *
 * @since 0.1.0
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type { CommandIo } from "../../CommandIo.js"
import { sessionsTable as table, storeListing } from "../../internal/sessionsTable.js"
import { listingPlace, storeSource } from "../../internal/source.js"
import type { SessionsOptions } from "../args/sessions.js"

/**
 * The sessions as a table (what `acx sessions` and `acx demo` print), last active first
 * (`internal/sessionsTable.ts`, which the store reads load without Effect).
 *
 * @since 0.1.0
 * @category rendering
 */
export const sessionsTable = table

/**
 * `acx sessions --from STORE` over a Postgres store (or a SQLite catalog of a later schema): the
 * store's sessions with their recorded origins, printed as a SQLite store's are
 * (`sessionsTable.storeListing`; a SQLite store is read without Effect: `internal/storeReads.ts`).
 *
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ from, json, limit, project }: SessionsOptions & { readonly from: string }) =>
  Effect.gen(function*() {
    const { openStore, storeProjects } = yield* Effect.promise(storeSource)
    const opened = yield* openStore(from)
    const projects = storeProjects(opened)
    const listed = yield* projects.listSessions(project)
    const origins = yield* StatsOrigins.ofStore(opened.store, project)
    // the rows and the order of the page's list (`GET /api/sessions`) too
    const list = SessionListing.rows(listed, origins, limit)
    yield* Console.log(storeListing(list, { json, place: listingPlace(projects, project) }))
  }).pipe(Effect.scoped)

/**
 * Opens the store `from` names (migrating it, deriving what is behind its entries; of one
 * project: none is an error, in a listing's words) and closes it, for the store reads
 * (`internal/storeReads.ts`), which read its catalog next; a failure is said on `io`'s stderr and
 * is the exit code.
 *
 * @since 0.6.0
 * @category handlers
 */
export const prepareStore = async (from: string, projectKey: string | undefined, io: CommandIo): Promise<number> => {
  const { runEffect } = await import("../../internal/runEffect.js")
  return runEffect(
    io,
    Effect.gen(function*() {
      const { openStore, storeProjects } = yield* Effect.promise(storeSource)
      yield* storeProjects(yield* openStore(from)).listSessions(projectKey)
    }).pipe(Effect.scoped)
  )
}
