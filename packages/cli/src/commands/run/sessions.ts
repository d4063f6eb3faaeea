/**
 * What `acx sessions` does (its options: `../sessions.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as format from "../../internal/format.js"
import { sessionsTable as table } from "../../internal/sessionsTable.js"
import { isStoreBacked, listingPlace, readingLayer } from "../../internal/source.js"
import { storeOf } from "../../internal/storeBacked.js"
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
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ configDir, followSymlinks, from, json, project }: SessionsOptions) =>
  Effect.gen(function*() {
    const projects = yield* ClaudeProjects.ClaudeProjects
    const listed = yield* projects.listSessions(project)
    // where each came from: a store's recorded origins, else this machine's
    const store = storeOf(projects)
    const origins = store === undefined
      ? ProjectOrigin.originsOfSessions(listed)
      : yield* StatsOrigins.ofStore(store, project)
    // the rows and the order of the page's list (`GET /api/sessions`) too
    const list = SessionListing.rows(listed, origins)
    if (json) return yield* Console.log(format.json(list))
    if (list.length === 0) return yield* Console.log(`no sessions ${listingPlace(projects, project)}`)
    // a store keeps entries, not files: its rows have no size to show
    yield* Console.log(sessionsTable(list, { sizes: !isStoreBacked(projects) }))
  }).pipe(Effect.provide(readingLayer(from, configDir, { followSymlinks })))
