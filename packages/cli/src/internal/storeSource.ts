/**
 * `--from TARGET`: a session store read instead of the config directory. The store is opened
 * for reading (`target.ts`'s `readTarget`): a SQLite file that does not exist, or is not a SQLite
 * database, is one line and nothing is created or changed (a mistyped path never becomes an empty
 * store), a Postgres server that does not answer is the store's own error, and the password shows
 * in no message (`DatabaseSpec.display`).
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as StoreProjects from "@acx/claude-code/StoreProjects"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as CliError from "../CliError.js"
import type { CurrentIo } from "./currentIo.js"
import { projectLabel } from "./options.js"
import { markStoreBacked } from "./storeBacked.js"
import { readTarget } from "./target.js"

/** An open store with its catalog, and how it is named to the user. */
export interface OpenStore {
  readonly store: SessionStore.SessionStore & StoreCatalog.WithCatalog
  /** The spec without credentials (`sqlite:/x.db`, `postgres://u:***@h/db`). */
  readonly display: string
}

/** Opens the store `spec` names for reading, in the scope; `flag` names the option in messages. */
export const openStore = (
  spec: string,
  flag = "--from"
): Effect.Effect<OpenStore, CliError.CliError | SessionStore.SessionStoreError, Scope.Scope | CurrentIo> =>
  Effect.gen(function*() {
    const target = yield* readTarget(spec, flag)
    // built in the caller's scope: the store stays open until the command is done
    const opened = Context.get(yield* Layer.build(target.layer), SessionStore.SessionStore)
    const catalog = StoreCatalog.catalogOf(opened)
    if (catalog === undefined) {
      return yield* CliError.invalidArgument(`${flag}: ${target.display} keeps no catalog (not an acx SQL store)`)
    }
    return { store: Object.assign(opened, { catalog }), display: target.display }
  })

/**
 * The `ClaudeProjects` service over an open store, marked as one (`storeBacked.ts`)
 * and with a project it has no session of said in the user's words (the path `--project` was
 * given, as for a config directory).
 */
export const storeProjects = ({ display, store }: OpenStore): ClaudeProjects.ClaudeProjects => {
  const projects = StoreProjects.make({ store, location: display })
  const named = (projectKey: string | undefined) =>
    Effect.mapError((error: ClaudeProjects.ClaudeProjectsError) =>
      projectKey === undefined || error.reason !== "NotFound"
        ? error
        : new ClaudeProjects.ClaudeProjectsError({
          reason: error.reason,
          operation: error.operation,
          description: `no sessions for project ${projectLabel(projectKey)} in ${display}`
        })
    )
  return markStoreBacked({
    ...projects,
    listSessions: (projectKey) => named(projectKey)(projects.listSessions(projectKey)),
    listSessionFiles: (projectKey) => named(projectKey)(projects.listSessionFiles(projectKey))
  }, store)
}
