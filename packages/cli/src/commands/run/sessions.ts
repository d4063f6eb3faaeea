/**
 * What `acx sessions` does (its options: `../sessions.ts`).
 *
 * @since 0.1.0
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as format from "../../internal/format.js"
import { sessionsTable as table } from "../../internal/sessionsTable.js"
import { listingPlace, storeSource } from "../../internal/source.js"
import type { SessionsOptions } from "../args/sessions.js"

/**
 * The sessions as a table (what `acx sessions` and `acx demo` print), last active first
 * (`internal/sessionsTable.ts`, which the fast read path loads without Effect).
 *
 * @since 0.1.0
 * @category rendering
 */
export const sessionsTable = table

/**
 * `acx sessions --from STORE`: the store's sessions with their recorded origins (a config
 * directory's are listed without Effect: `../sessions.ts`).
 *
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ from, json, project }: SessionsOptions & { readonly from: string }) =>
  Effect.gen(function*() {
    const { openStore, storeProjects } = yield* Effect.promise(storeSource)
    const opened = yield* openStore(from)
    const projects = storeProjects(opened)
    const listed = yield* projects.listSessions(project)
    const origins = yield* StatsOrigins.ofStore(opened.store, project)
    // the rows and the order of the page's list (`GET /api/sessions`) too
    const list = SessionListing.rows(listed, origins)
    if (json) return yield* Console.log(format.json(list))
    if (list.length === 0) return yield* Console.log(`no sessions ${listingPlace(projects, project)}`)
    // a store keeps entries, not files: its rows have no size to show
    yield* Console.log(sessionsTable(list, { sizes: false }))
  }).pipe(Effect.scoped)
