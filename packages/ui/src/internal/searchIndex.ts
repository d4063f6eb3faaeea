/**
 * What the page's search box searches: a store's full-text index (`StoreCatalog.search`). Over a
 * store (`acx ui --from`), that store's. Over a config directory, the default sync store
 * (`$ACX_HOME/sessions.db`, what `acx sync` fills), opened on the first search that finds the
 * file (never created: no file, no index) and kept open with the server. Without one the answer
 * says how to make one: the page never scans every transcript instead.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"

/** An index to search, and how it is named (no password). */
export interface OpenIndex {
  readonly catalog: StoreCatalog.StoreCatalog
  readonly location: string
}

/** The search box's index. */
export interface SearchIndex {
  /** The index, or why there is none and how to make one (a sentence for the page). */
  readonly open: Effect.Effect<Either.Either<OpenIndex, string>, SessionStore.SessionStoreError>
}

/** The index of the store the page reads. */
export const ofStore = (catalog: StoreCatalog.StoreCatalog, location: string): SearchIndex => ({
  open: Effect.succeed(Either.right({ catalog, location }))
})

/** The guidance when a config directory has no sync store to search. */
export const noIndex = (file: string): string =>
  `Search needs an index: run \`acx sync\` (it keeps every session in ${file}, searchable), ` +
  "or open the page over a store with `acx ui --from TARGET`."

/** The default sync store under `acxHome`, opened on demand in `scope`'s lifetime (the server's). */
export const defaultSyncStore = (acxHome: string): Effect.Effect<SearchIndex, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const file = AcxHome.paths(acxHome).sessionsDatabase
    const lock = yield* Effect.makeSemaphore(1)
    let opened: OpenIndex | undefined
    const open = lock.withPermits(1)(Effect.suspend((): SearchIndex["open"] => {
      if (opened !== undefined) return Effect.succeed(Either.right(opened))
      // checked first: opening a SQLite file that is not there would create it
      if (!fs.existsSync(file)) return Effect.succeed(Either.left(noIndex(file)))
      return Scope.extend(SqliteSessionStore.make({ filename: file }), scope).pipe(
        Effect.map((store) => {
          opened = { catalog: store.catalog, location: `sqlite:${file}` }
          return Either.right(opened)
        })
      )
    }))
    return { open }
  })
